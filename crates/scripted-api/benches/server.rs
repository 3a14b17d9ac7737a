//! Cost of the scripted server per agent run: start + stop, one streamed main turn for a
//! Claude-Code-sized request (~48 KB body, as Claude Code 2.1 sends), and the script replay at the
//! step limit. Compare with the agent's own time per run (a real `claude -p` run against this
//! server takes about 0.6 s in the e2e tests).
#![forbid(unsafe_code)]
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::io::{Read, Write};
use std::net::TcpStream;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use warrant_scripted_api::{Script, ScriptedServer, Turn};

fn script() -> Script {
    Script::from_str(
        r#"
[[turn]]
id = "test"
tool = "Bash"
input = { command = "python -m pytest -q" }

[[turn]]
when_result_contains = "failed"
goto = "test"
tool = "Edit"
input = { file_path = "calc.py", old_string = "a - b", new_string = "a + b" }

[[turn]]
text = "All tests pass."
"#,
    )
    .expect("valid script")
}

/// A body shaped like Claude Code's: a ~40 KB system prompt, twelve tools, `steps` done steps.
fn claude_like_body(steps: usize) -> Value {
    let tools: Vec<Value> = [
        "Agent",
        "Bash",
        "Edit",
        "Read",
        "Skill",
        "Write",
        "ToolSearch",
        "ListAgents",
        "ReportFindings",
        "ScheduleWakeup",
        "Workflow",
        "DeferredToolPlaceholder",
    ]
    .iter()
    .map(|n| json!({"name": n, "description": "x".repeat(600), "input_schema": {"type": "object"}}))
    .collect();
    let mut messages =
        vec![json!({"role": "user", "content": [{"type": "text", "text": "Fix the bug."}]})];
    for k in 0..steps {
        messages.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": format!("toolu_scripted_{k}_0"), "name": "Bash", "input": {"command": "python -m pytest -q"}}]}));
        messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("toolu_scripted_{k}_0"), "content": "1 failed, 2 passed"}]}));
    }
    json!({"model": "claude-opus-5-5", "max_tokens": 128000, "stream": true,
           "system": [{"type": "text", "text": "s".repeat(40_000)}],
           "tools": tools, "messages": messages})
}

fn post(server: &ScriptedServer, body: &[u8]) -> usize {
    let mut stream = TcpStream::connect(server.addr()).expect("connect");
    let head = format!(
        "POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(body).expect("write");
    let mut out = Vec::new();
    stream.read_to_end(&mut out).expect("read");
    out.len()
}

fn benches(c: &mut Criterion) {
    c.bench_function("start_stop", |b| {
        b.iter(|| ScriptedServer::start(script()).expect("start").stop())
    });

    let server = ScriptedServer::start(script()).expect("start");
    let body = claude_like_body(3).to_string().into_bytes();
    c.bench_function("main_turn_sse_48k_body", |b| {
        b.iter(|| black_box(post(&server, &body)))
    });
    server.stop();

    let long = Script::new(vec![
        Turn::bash("pytest").with_id("t"),
        Turn::bash("fix")
            .when_result_contains("failed")
            .with_goto("t"),
        Turn::text("done"),
    ]);
    let results: Vec<String> = (0..49).map(|_| "1 failed".to_owned()).collect();
    c.bench_function("choose_replay_49_steps", |b| {
        b.iter(|| black_box(long.choose(black_box(&results))))
    });
}

criterion_group!(server_benches, benches);
criterion_main!(server_benches);
