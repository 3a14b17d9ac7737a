//! Building Messages API answers: a full `message` object, or the same message as an SSE stream.

use serde_json::{Value, json};

/// A scripted assistant message, before it is rendered as JSON or SSE.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Message id (`msg_...`), deterministic per step so retries get the same answer.
    pub id: String,
    /// Model name echoed from the request.
    pub model: String,
    /// Content blocks: `{"type":"text",...}` and `{"type":"tool_use",...}`.
    pub content: Vec<Value>,
    /// `tool_use` when the content has tool calls, else `end_turn`.
    pub stop_reason: &'static str,
    /// Input token count reported in `usage`.
    pub input_tokens: u64,
    /// Output token count reported in `usage`.
    pub output_tokens: u64,
}

/// Rough token estimate of a text: one token per four bytes, at least one.
pub fn estimate_tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4).max(1)
}

impl Reply {
    /// A reply with these content blocks; `stop_reason` and output tokens follow from them.
    pub fn new(id: String, model: String, content: Vec<Value>, input_tokens: u64) -> Self {
        let has_tool = content
            .iter()
            .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"));
        let output_tokens = estimate_tokens(Value::Array(content.clone()).to_string().len());
        Self {
            id,
            model,
            content,
            stop_reason: if has_tool { "tool_use" } else { "end_turn" },
            input_tokens,
            output_tokens,
        }
    }

    fn usage(&self) -> Value {
        json!({
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        })
    }

    /// The reply as a non-streaming `message` object.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": self.content,
            "stop_reason": self.stop_reason,
            "stop_sequence": null,
            "usage": self.usage(),
        })
    }

    /// The reply as a `text/event-stream` body: `message_start`, per block `content_block_start`,
    /// deltas (`text_delta` or `input_json_delta`, split in pieces), `content_block_stop`, then
    /// `message_delta` with `stop_reason` and usage, and `message_stop`.
    pub fn to_sse(&self) -> String {
        let mut out = String::new();
        let mut event = |name: &str, data: Value| {
            out.push_str("event: ");
            out.push_str(name);
            out.push_str("\ndata: ");
            out.push_str(&data.to_string());
            out.push_str("\n\n");
        };
        event(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": self.id,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {
                    "input_tokens": self.input_tokens,
                    "output_tokens": 1,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            }}),
        );
        event("ping", json!({"type": "ping"}));
        for (index, block) in self.content.iter().enumerate() {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                    event(
                        "content_block_start",
                        json!({"type": "content_block_start", "index": index, "content_block": {
                            "type": "tool_use",
                            "id": block.get("id"),
                            "name": block.get("name"),
                            "input": {},
                        }}),
                    );
                    for piece in split_chars(&input.to_string(), 3) {
                        event(
                            "content_block_delta",
                            json!({"type": "content_block_delta", "index": index,
                                   "delta": {"type": "input_json_delta", "partial_json": piece}}),
                        );
                    }
                }
                _ => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    event(
                        "content_block_start",
                        json!({"type": "content_block_start", "index": index,
                               "content_block": {"type": "text", "text": ""}}),
                    );
                    for piece in split_chars(text, 2) {
                        event(
                            "content_block_delta",
                            json!({"type": "content_block_delta", "index": index,
                                   "delta": {"type": "text_delta", "text": piece}}),
                        );
                    }
                }
            }
            event(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": index}),
            );
        }
        event(
            "message_delta",
            json!({"type": "message_delta",
                   "delta": {"stop_reason": self.stop_reason, "stop_sequence": null},
                   "usage": {"output_tokens": self.output_tokens}}),
        );
        event("message_stop", json!({"type": "message_stop"}));
        out
    }
}

/// Splits `s` into at most `parts` non-empty pieces on char boundaries (one piece when short).
fn split_chars(s: &str, parts: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let size = chars.len().div_ceil(parts.max(1));
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// An Anthropic-style error body.
pub fn error_body(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_reassembles_to_the_same_tool_input() {
        let input = json!({"command": "echo héllo > f.txt", "description": "write"});
        let reply = Reply::new(
            "msg_1".into(),
            "m".into(),
            vec![
                json!({"type": "text", "text": "Running it."}),
                json!({"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": input}),
            ],
            10,
        );
        assert_eq!(reply.stop_reason, "tool_use");
        let sse = reply.to_sse();
        let mut partial = String::new();
        let mut text = String::new();
        let mut names = Vec::new();
        for chunk in sse.split("\n\n").filter(|c| !c.is_empty()) {
            let mut lines = chunk.lines();
            let name = lines.next().unwrap().strip_prefix("event: ").unwrap();
            let data: Value =
                serde_json::from_str(lines.next().unwrap().strip_prefix("data: ").unwrap())
                    .unwrap();
            assert_eq!(data["type"], name);
            names.push(name.to_owned());
            if let Some(p) = data["delta"]["partial_json"].as_str() {
                partial.push_str(p);
            }
            if let Some(t) = data["delta"]["text"].as_str() {
                text.push_str(t);
            }
        }
        assert_eq!(serde_json::from_str::<Value>(&partial).unwrap(), input);
        assert_eq!(text, "Running it.");
        assert_eq!(names.first().unwrap(), "message_start");
        assert_eq!(names.last().unwrap(), "message_stop");
        assert!(names.iter().any(|n| n == "message_delta"));
        assert!(sse.contains(r#""stop_reason":"tool_use""#));
    }

    #[test]
    fn text_only_reply_ends_the_turn() {
        let reply = Reply::new(
            "m".into(),
            "m".into(),
            vec![json!({"type":"text","text":"done"})],
            1,
        );
        assert_eq!(reply.stop_reason, "end_turn");
        assert_eq!(
            reply.to_json()["usage"]["output_tokens"],
            reply.output_tokens
        );
    }
}
