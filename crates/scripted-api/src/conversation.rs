//! Reading a Messages API request body: which kind of call it is and where the conversation
//! stands (how many assistant steps are done and what the tool results said).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a recorded request was, as the server classified it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum RequestKind {
    /// A turn of the main agent conversation (its `tools` include the script's main tool);
    /// `step` is the number of assistant turns already in `messages`, i.e. the turn answered.
    Main {
        /// Zero-based step answered.
        step: usize,
    },
    /// A `POST /v1/messages` with `max_tokens: 1` (quota checks, warm-up probes).
    Probe,
    /// A subagent's conversation (Claude Code marks its system prompt with `cc_is_subagent=true`,
    /// e.g. for the `Agent` tool): answered with `side_text` as a final text, so a subagent never
    /// replays the main script.
    Subagent,
    /// Any other `POST /v1/messages` (title generation, topic detection and other small-model
    /// side calls): answered with the script's `side_text`.
    Side,
    /// `POST /v1/messages/count_tokens`.
    CountTokens,
    /// Anything else (`HEAD` warm-ups, unknown paths).
    Other,
}

/// One `tool_result` block found in a request's `messages`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The `tool_use_id` it answers.
    pub tool_use_id: String,
    /// Its content as text (text blocks joined by newlines).
    pub text: String,
    /// Whether the agent flagged it `is_error`.
    pub is_error: bool,
}

/// Whether `body.tools` names a tool called `name`.
pub fn has_tool(body: &Value, name: &str) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| {
            tools
                .iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
        })
}

/// Whether the request is a Claude Code subagent's: its `system` prompt carries the
/// `cc_is_subagent=true` marker (in the `x-anthropic-billing-header` text block).
pub fn is_subagent(body: &Value) -> bool {
    body.get("system")
        .map(content_text)
        .is_some_and(|s| s.contains("cc_is_subagent=true"))
}

/// Text of a content value: a string, or the text of its `text` blocks (nested `tool_result`
/// content included), joined by newlines.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                Some("text") => b.get("text").and_then(Value::as_str).map(str::to_owned),
                Some("tool_result") => b.get("content").map(content_text),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The text of the conversation's first `user` message (the prompt, with whatever the agent put
/// around it, such as Claude Code's `<system-reminder>` blocks).
pub fn prompt(body: &Value) -> String {
    messages(body)
        .iter()
        .find(|m| role(m) == Some("user"))
        .and_then(|m| m.get("content"))
        .map(content_text)
        .unwrap_or_default()
}

/// The conversation's opening context: the `system` prompt's text and the text of every message
/// before the first assistant turn, joined by newlines. It does not change as the conversation
/// goes on, and it is where Claude Code lists the available skills.
pub fn opening_context(body: &Value) -> String {
    let mut parts: Vec<String> = body.get("system").map(content_text).into_iter().collect();
    for m in messages(body) {
        if role(m) == Some("assistant") {
            break;
        }
        parts.push(m.get("content").map(content_text).unwrap_or_default());
    }
    parts.join("\n")
}

/// Every `tool_result` block in the request's `messages`, in order.
pub fn tool_results(body: &Value) -> Vec<ToolResult> {
    messages(body)
        .iter()
        .filter(|m| role(m) == Some("user"))
        .flat_map(|m| blocks(m).iter())
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|b| ToolResult {
            tool_use_id: b
                .get("tool_use_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            text: b.get("content").map(content_text).unwrap_or_default(),
            is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
        })
        .collect()
}

/// The conversation's completed assistant steps: for each run of assistant messages not separated
/// by a `user` message (one step), the text of the tool results that answered it (everything in `tool_result` blocks
/// of the user messages up to the next assistant message, joined by newlines).
///
/// Its length is the number of steps done, so the next step to answer is `steps(body).len()`.
pub fn steps(body: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut previous_was_assistant = false;
    for m in messages(body) {
        match role(m) {
            Some("assistant") => {
                if !previous_was_assistant {
                    out.push(String::new());
                }
                previous_was_assistant = true;
            }
            Some("user") => {
                previous_was_assistant = false;
                let Some(last) = out.last_mut() else { continue };
                for b in blocks(m) {
                    if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                        if !last.is_empty() {
                            last.push('\n');
                        }
                        last.push_str(&b.get("content").map(content_text).unwrap_or_default());
                    }
                }
            }
            // Mid-conversation `system` messages (Claude Code 2.1 sends its environment block as
            // one) neither start nor end a step.
            _ => {}
        }
    }
    out
}

fn messages(body: &Value) -> &[Value] {
    body.get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn role(m: &Value) -> Option<&str> {
    m.get("role").and_then(Value::as_str)
}

fn blocks(m: &Value) -> &[Value] {
    m.get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_group_consecutive_assistant_messages_and_collect_results() {
        let body = json!({"messages": [
            {"role": "user", "content": "fix it"},
            {"role": "system", "content": "# Environment"},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {"role": "system", "content": "<system-reminder>between</system-reminder>"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "1 failed"},
                {"type": "text", "text": "<system-reminder>ignored</system-reminder>"}
            ]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "b", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "3 passed"}]}
            ]}
        ]});
        assert_eq!(
            steps(&body),
            vec!["1 failed".to_owned(), "3 passed".to_owned()]
        );
        let results = tool_results(&body);
        assert_eq!(results.len(), 2);
        assert_eq!(results[1].tool_use_id, "b");
        assert_eq!(results[1].text, "3 passed");
    }

    #[test]
    fn prompt_is_the_first_user_message_text() {
        let body = json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "<system-reminder>r</system-reminder>"}, {"type": "text", "text": "Fix calc.py"}]},
            {"role": "system", "content": "# Environment"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "later"}
        ]});
        assert_eq!(
            prompt(&body),
            "<system-reminder>r</system-reminder>\nFix calc.py"
        );
        assert_eq!(
            prompt(&json!({"messages": [{"role": "user", "content": "hi"}]})),
            "hi"
        );
        assert_eq!(prompt(&json!({})), "");
    }

    #[test]
    fn opening_context_stops_at_the_first_assistant_turn() {
        let body = json!({"system": [{"type": "text", "text": "SYS"}], "messages": [
            {"role": "user", "content": "prompt"},
            {"role": "system", "content": [{"type": "text", "text": "- demo-skill: a skill"}]},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "LATER"}
        ]});
        let ctx = opening_context(&body);
        assert!(ctx.contains("SYS") && ctx.contains("prompt") && ctx.contains("- demo-skill:"));
        assert!(!ctx.contains("LATER"));
    }

    #[test]
    fn first_request_has_no_steps() {
        let body = json!({"messages": [{"role": "user", "content": "hi"}]});
        assert!(steps(&body).is_empty());
        assert!(steps(&json!({})).is_empty());
    }

    #[test]
    fn subagent_marker_is_read_from_the_system_prompt() {
        let sub = json!({"system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332; cc_is_subagent=true;"}]});
        assert!(is_subagent(&sub));
        let main = json!({"system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332;"}]});
        assert!(!is_subagent(&main));
        assert!(!is_subagent(&json!({"system": "You are Claude Code"})));
        assert!(is_subagent(&json!({"system": "cc_is_subagent=true"})));
    }

    #[test]
    fn has_tool_reads_tool_names() {
        let body = json!({"tools": [{"name": "Read"}, {"name": "Bash"}]});
        assert!(has_tool(&body, "Bash"));
        assert!(!has_tool(&body, "Write"));
        assert!(!has_tool(&json!({"tools": "Bash"}), "Bash"));
    }
}
