//! The server over real loopback HTTP: routing, classification, SSE and JSON answers, idempotent
//! retries, concurrent clients, bad input.
//!
//! The client here is a minimal HTTP/1.1 writer over `TcpStream` with `Connection: close`, enough
//! to send exactly the bytes a test needs (including malformed bodies).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};
use warrant_scripted_api::{RequestKind, Script, ScriptedServer};

struct Answer {
    status: u16,
    content_type: String,
    body: String,
}

fn send(server: &ScriptedServer, method: &str, path: &str, body: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nx-api-key: test-key\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        server.addr(),
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| {
            l.split_once(':')
                .filter(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        })
        .map(|(_, v)| v.trim().to_owned())
        .unwrap_or_default();
    Answer {
        status,
        content_type,
        body: body.to_owned(),
    }
}

fn post(server: &ScriptedServer, path: &str, body: &Value) -> Answer {
    send(server, "POST", path, body.to_string().as_bytes())
}

/// Parses an SSE body into (event name, data) pairs.
fn events(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter(|c| !c.trim().is_empty())
        .map(|chunk| {
            let mut name = String::new();
            let mut data = Value::Null;
            for line in chunk.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_owned();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(d).unwrap();
                }
            }
            (name, data)
        })
        .collect()
}

fn script() -> Script {
    Script::from_str(
        r#"
side_text = "side-answer"

[[turn]]
text = "Running the tests."
tool = "Bash"
input = { command = "python -m pytest -q" }

[[turn]]
when_result_contains = "failed"
[[turn.calls]]
tool = "Bash"
input = { command = "echo one" }
[[turn.calls]]
tool = "Bash"
input = { command = "echo two" }

[[turn]]
text = "All green."
"#,
    )
    .unwrap()
}

fn tools() -> Value {
    json!([{"name": "Bash", "input_schema": {}}, {"name": "Read", "input_schema": {}}])
}

fn main_body(messages: Value, stream: bool) -> Value {
    json!({"model": "claude-test", "max_tokens": 32000, "stream": stream,
           "system": [{"type": "text", "text": "You are an agent."}],
           "tools": tools(), "messages": messages})
}

fn first_messages() -> Value {
    json!([{"role": "user", "content": [{"type": "text", "text": "fix it"}]}])
}

fn after_first_step(result: &str) -> Value {
    json!([
        {"role": "user", "content": [{"type": "text", "text": "fix it"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Running the tests."},
            {"type": "tool_use", "id": "toolu_scripted_0_0", "name": "Bash", "input": {"command": "python -m pytest -q"}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_scripted_0_0", "content": result}
        ]}
    ])
}

#[test]
fn first_main_request_streams_the_first_turn_as_sse() {
    let server = ScriptedServer::start(script()).unwrap();
    let answer = post(
        &server,
        "/v1/messages?beta=true",
        &main_body(first_messages(), true),
    );
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "text/event-stream");
    let evs = events(&answer.body);
    let names: Vec<&str> = evs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(names.last(), Some(&"message_stop"));
    for (name, data) in &evs {
        assert_eq!(data["type"], name.as_str());
    }
    let start = &evs[0].1["message"];
    assert_eq!(start["model"], "claude-test");
    assert!(start["usage"]["input_tokens"].as_u64().unwrap() > 10);
    // Block 0: text; block 1: the Bash tool_use whose JSON deltas rebuild the input.
    let block_starts: Vec<&Value> = evs
        .iter()
        .filter(|(n, _)| n == "content_block_start")
        .map(|(_, d)| &d["content_block"])
        .collect();
    assert_eq!(block_starts[0]["type"], "text");
    assert_eq!(block_starts[1]["type"], "tool_use");
    assert_eq!(block_starts[1]["name"], "Bash");
    assert_eq!(block_starts[1]["id"], "toolu_scripted_0_0");
    let json: String = evs
        .iter()
        .filter_map(|(_, d)| d["delta"]["partial_json"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&json).unwrap(),
        json!({"command": "python -m pytest -q"})
    );
    let text: String = evs
        .iter()
        .filter_map(|(_, d)| d["delta"]["text"].as_str())
        .collect();
    assert_eq!(text, "Running the tests.");
    let delta = &evs.iter().find(|(n, _)| n == "message_delta").unwrap().1;
    assert_eq!(delta["delta"]["stop_reason"], "tool_use");
    assert!(delta["usage"]["output_tokens"].as_u64().unwrap() > 0);

    let recorded = server.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].kind, RequestKind::Main { step: 0 });
    assert_eq!(recorded[0].path_only(), "/v1/messages");
    assert_eq!(recorded[0].header("X-API-KEY"), Some("test-key"));
}

#[test]
fn branch_follows_the_tool_result_and_parallel_calls_share_a_turn() {
    let server = ScriptedServer::start(script()).unwrap();
    let red = post(
        &server,
        "/v1/messages",
        &main_body(after_first_step("1 failed, 2 passed"), false),
    );
    assert_eq!(red.status, 200);
    assert_eq!(red.content_type, "application/json");
    let msg: Value = serde_json::from_str(&red.body).unwrap();
    assert_eq!(msg["type"], "message");
    assert_eq!(msg["stop_reason"], "tool_use");
    let calls: Vec<&str> = msg["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["input"]["command"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["echo one", "echo two"]);
    assert_eq!(msg["content"][1]["id"], "toolu_scripted_1_1");

    let green = post(
        &server,
        "/v1/messages",
        &main_body(after_first_step("3 passed"), false),
    );
    let msg: Value = serde_json::from_str(&green.body).unwrap();
    assert_eq!(msg["stop_reason"], "end_turn");
    assert_eq!(
        msg["content"],
        json!([{"type": "text", "text": "All green."}])
    );
    assert!(msg["usage"]["output_tokens"].as_u64().unwrap() > 0);
}

#[test]
fn retries_and_duplicates_get_the_same_answer() {
    let server = ScriptedServer::start(script()).unwrap();
    let body = main_body(after_first_step("1 failed"), true);
    let first = post(&server, "/v1/messages?beta=true", &body).body;
    // Other traffic in between must not move anything on.
    post(&server, "/v1/messages", &main_body(first_messages(), true));
    post(
        &server,
        "/v1/messages",
        &json!({"model": "small", "max_tokens": 1, "messages": [{"role": "user", "content": "quota"}]}),
    );
    let again = post(&server, "/v1/messages?beta=true", &body).body;
    assert_eq!(first, again);
    let kinds: Vec<RequestKind> = server.requests().into_iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            RequestKind::Main { step: 1 },
            RequestKind::Main { step: 0 },
            RequestKind::Probe,
            RequestKind::Main { step: 1 }
        ]
    );
}

#[test]
fn side_calls_probes_count_tokens_and_warmups_do_not_touch_the_script() {
    let server = ScriptedServer::start(script()).unwrap();
    // Probe: max_tokens 1, even with tools.
    let probe = post(
        &server,
        "/v1/messages",
        &json!({"model": "m", "max_tokens": 1, "tools": tools(), "messages": first_messages()}),
    );
    let msg: Value = serde_json::from_str(&probe.body).unwrap();
    assert_eq!(msg["content"][0]["text"], "side-answer");
    // Side call: title generation with no tools, streamed.
    let side = post(
        &server,
        "/v1/messages?beta=true",
        &json!({"model": "claude-haiku", "max_tokens": 512, "stream": true,
                "system": [{"type": "text", "text": "Generate a title"}],
                "messages": [{"role": "user", "content": "fix it"}]}),
    );
    let evs = events(&side.body);
    let text: String = evs
        .iter()
        .filter_map(|(_, d)| d["delta"]["text"].as_str())
        .collect();
    assert_eq!(text, "side-answer");
    assert!(
        evs.iter()
            .any(|(_, d)| d["delta"]["stop_reason"] == "end_turn")
    );
    // count_tokens.
    let count = post(
        &server,
        "/v1/messages/count_tokens?beta=true",
        &main_body(first_messages(), false),
    );
    assert_eq!(count.status, 200);
    let n: Value = serde_json::from_str(&count.body).unwrap();
    assert!(n["input_tokens"].as_u64().unwrap() > 10);
    // HEAD warm-up.
    let head = send(&server, "HEAD", "/api/hello", b"");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    // Unknown path.
    let unknown = send(&server, "GET", "/v1/models", b"");
    assert_eq!(unknown.status, 404);
    let err: Value = serde_json::from_str(&unknown.body).unwrap();
    assert_eq!(err["type"], "error");
    assert_eq!(err["error"]["type"], "not_found_error");

    let kinds: Vec<RequestKind> = server.requests().into_iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            RequestKind::Probe,
            RequestKind::Side,
            RequestKind::CountTokens,
            RequestKind::Other,
            RequestKind::Other
        ]
    );
    // The main conversation still starts at the first turn.
    let main = post(&server, "/v1/messages", &main_body(first_messages(), false));
    let msg: Value = serde_json::from_str(&main.body).unwrap();
    assert_eq!(msg["content"][1]["input"]["command"], "python -m pytest -q");
    assert_eq!(server.main_requests().len(), 1);
}

#[test]
fn malformed_bodies_get_a_400_and_the_server_keeps_serving() {
    let server = ScriptedServer::start(script()).unwrap();
    for body in [&b"{not json"[..], b"[1,2]", b"", b"\xff\xfe"] {
        let answer = send(&server, "POST", "/v1/messages", body);
        assert_eq!(answer.status, 400, "{body:?}");
        let err: Value = serde_json::from_str(&answer.body).unwrap();
        assert_eq!(err["error"]["type"], "invalid_request_error");
    }
    // Messages that are not what we expect: no panic, a scripted answer.
    let odd = post(
        &server,
        "/v1/messages",
        &json!({"tools": tools(), "messages": [{"role": "assistant", "content": 5}, {"role": 7}]}),
    );
    assert_eq!(odd.status, 200);
    let ok = post(&server, "/v1/messages", &main_body(first_messages(), false));
    assert_eq!(ok.status, 200);
}

#[test]
fn concurrent_clients_each_get_their_own_conversation_answered() {
    let server = ScriptedServer::start(script()).unwrap();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let server = &server;
                s.spawn(move || {
                    let (messages, want) = if i % 2 == 0 {
                        (first_messages(), "tool_use")
                    } else {
                        (after_first_step("5 passed"), "end_turn")
                    };
                    let a = post(server, "/v1/messages", &main_body(messages, false));
                    let msg: Value = serde_json::from_str(&a.body).unwrap();
                    assert_eq!(msg["stop_reason"], want);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
    assert_eq!(server.requests().len(), 8);
}

#[test]
fn stop_frees_the_port_and_a_custom_main_tool_is_honoured() {
    let mut script = script();
    script.main_tool = Some("Shell".into());
    let server = ScriptedServer::start(script).unwrap();
    // `Bash` is no longer the marker: this is a side call.
    let a = post(&server, "/v1/messages", &main_body(first_messages(), false));
    let msg: Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(msg["content"][0]["text"], "side-answer");
    let body =
        json!({"max_tokens": 100, "tools": [{"name": "Shell"}], "messages": first_messages()});
    let b = post(&server, "/v1/messages", &body);
    let msg: Value = serde_json::from_str(&b.body).unwrap();
    assert_eq!(msg["stop_reason"], "tool_use");

    let addr = server.addr();
    server.stop();
    assert!(
        TcpStream::connect(addr).is_err(),
        "server still accepts after stop"
    );
}

#[test]
fn an_invalid_script_is_refused_at_start() {
    let mut s = script();
    s.turns[0].goto = Some("missing".into());
    let err = ScriptedServer::start(s).unwrap_err().to_string();
    assert!(err.contains("`goto` names `missing`"), "{err}");
}

#[test]
fn summary_names_the_request_without_key_or_prompt() {
    let server = ScriptedServer::start(script()).unwrap();
    post(
        &server,
        "/v1/messages?beta=true",
        &main_body(first_messages(), true),
    );
    let line = server.requests()[0].summary();
    assert!(
        line.starts_with("POST /v1/messages?beta=true -> 200 [main step 0]"),
        "{line}"
    );
    assert!(
        line.contains("model=\"claude-test\"") && line.contains("tools=[Bash,Read]"),
        "{line}"
    );
    assert!(
        !line.contains("test-key") && !line.contains("fix it"),
        "{line}"
    );
}

#[test]
fn one_server_plays_a_different_agent_per_prompt() {
    let script = Script::from_str(
        r#"
[[turn]]
text = "unclaimed"

[[agent]]
when_prompt_contains = "scenario-a"
[[agent.turn]]
tool = "Bash"
input = { command = "echo a" }

[[agent]]
when_prompt_contains = "scenario-b"
[[agent.turn]]
tool = "Bash"
input = { command = "echo b" }
"#,
    )
    .unwrap();
    let server = ScriptedServer::start(script).unwrap();
    let ask = |prompt: &str| {
        let messages = json!([{"role": "user", "content": [
            {"type": "text", "text": "<system-reminder>attribution</system-reminder>"},
            {"type": "text", "text": prompt}]}]);
        let a = post(&server, "/v1/messages", &main_body(messages, false));
        serde_json::from_str::<Value>(&a.body).unwrap()["content"][0].clone()
    };
    assert_eq!(ask("run scenario-b")["input"]["command"], "echo b");
    assert_eq!(ask("run scenario-a")["input"]["command"], "echo a");
    assert_eq!(ask("something else")["text"], "unclaimed");
}

#[test]
fn a_client_stalled_mid_body_does_not_block_other_requests() {
    let server = ScriptedServer::start(script()).unwrap();
    // Announce a big body and send only part of it, then keep the connection open.
    let mut stalled = TcpStream::connect(server.addr()).unwrap();
    stalled
        .write_all(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{\"mod")
        .unwrap();
    // A normal request still gets its answer.
    let answer = post(&server, "/v1/messages", &main_body(first_messages(), false));
    assert_eq!(answer.status, 200);
    let msg: Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(msg["stop_reason"], "tool_use");
    drop(stalled);
}

#[test]
fn the_record_is_bounded_so_a_request_loop_cannot_exhaust_memory() {
    use warrant_scripted_api::MAX_RECORDED_REQUESTS;
    let server = ScriptedServer::start(script()).unwrap();
    // One keep-alive connection, many HEAD requests: the bound, plus five.
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let total = MAX_RECORDED_REQUESTS + 5;
    let mut buf = [0u8; 4096];
    for _ in 0..total {
        stream
            .write_all(b"HEAD /api/hello HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        // Each answer is a status line and headers ending in a blank line, no body.
        let mut got = Vec::new();
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "server closed the connection");
            got.extend_from_slice(&buf[..n]);
        }
    }
    assert_eq!(server.requests().len(), MAX_RECORDED_REQUESTS);
    assert_eq!(server.dropped_records(), 5);
    // Still answering.
    let a = post(&server, "/v1/messages", &main_body(first_messages(), false));
    assert_eq!(a.status, 200);
}
