//! End-to-end: the real Claude Code CLI (`claude`, installed by `scripts/setup.d/50-claude-code.sh`)
//! runs offline against the scripted server, executes a scripted `Bash` call for real, posts the
//! `tool_result` back, and ends with the scripted final text.
//!
//! A missing `claude` fails these tests on purpose: CI installs it through the setup script.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use warrant_scripted_api::{RecordedRequest, RequestKind, Script, ScriptedServer};

const TIMEOUT: Duration = Duration::from_secs(180);

fn find_claude() -> PathBuf {
    if let Some(p) = std::env::var_os("WARRANT_CLAUDE_BIN") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join("claude");
        if candidate.is_file() {
            return candidate;
        }
    }
    panic!(
        "the `claude` binary (npm package @anthropic-ai/claude-code 2.1.x) is not on PATH; \
         install it with `sudo bash scripts/setup.d/50-claude-code.sh` (CI runs it through \
         scripts/setup), or point WARRANT_CLAUDE_BIN at it"
    );
}

/// Runs `claude -p` in `project` with an environment built from nothing, the prompt on stdin.
fn run_claude(server: &ScriptedServer, home: &Path, project: &Path, prompt: &str) -> Output {
    let claude = find_claude();
    let mut child = Command::new(&claude)
        .args([
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Bash Read Write Edit",
        ])
        .current_dir(project)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `{}`: {e}", claude.display()));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(prompt.as_bytes()).expect("write prompt");
    drop(stdin);
    let start = Instant::now();
    loop {
        match child.try_wait().expect("wait for claude") {
            Some(_) => break,
            None if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                break;
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    child.wait_with_output().expect("collect claude output")
}

fn describe(requests: &[RecordedRequest]) -> String {
    requests
        .iter()
        .map(|r| {
            let body = r.body.as_ref();
            format!(
                "{} {} {:?} model={} max_tokens={} stream={} tools={} messages={}",
                r.method,
                r.path,
                r.kind,
                body.and_then(|b| b.get("model")).unwrap_or(&Value::Null),
                body.and_then(|b| b.get("max_tokens"))
                    .unwrap_or(&Value::Null),
                body.and_then(|b| b.get("stream")).unwrap_or(&Value::Null),
                body.and_then(|b| b.get("tools"))
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len),
                body.and_then(|b| b.get("messages"))
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len),
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn stream_events(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn real_claude_runs_a_scripted_bash_call_and_ends_with_the_final_text() {
    let script = Script::from_str(
        r#"
[[turn]]
text = "I will create the marker file."
tool = "Bash"
input = { command = "echo scripted-marker-7f3a > created_by_agent.txt && echo wrote-it", description = "Create the marker file" }

[[turn]]
when_result_contains = "wrote-it"
text = "SCRIPTED-FINAL: the marker file is in place."

[[turn]]
text = "SCRIPTED-WRONG-BRANCH"
"#,
    )
    .expect("valid script");
    let server = ScriptedServer::start(script).expect("server starts");
    let home = tempfile::tempdir().expect("home dir");
    let project = tempfile::tempdir().expect("project dir");

    let out = run_claude(
        &server,
        home.path(),
        project.path(),
        "Create the marker file, please.",
    );
    let requests = server.requests();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "status: {:?}\nrequests:\n{}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status,
        describe(&requests)
    );
    eprintln!("{context}");

    // The tool really ran in the project directory.
    let marker = project.path().join("created_by_agent.txt");
    let content = std::fs::read_to_string(&marker)
        .unwrap_or_else(|e| panic!("marker file missing ({e}); {context}"));
    assert_eq!(content.trim(), "scripted-marker-7f3a", "{context}");
    assert!(out.status.success(), "claude failed; {context}");

    // The tool_result came back to the server on the next main-conversation request.
    let main: Vec<&RecordedRequest> = requests.iter().filter(|r| r.is_main()).collect();
    assert!(
        main.iter().any(|r| r.kind == RequestKind::Main { step: 0 }),
        "no first main request; {context}"
    );
    let second = main
        .iter()
        .find(|r| r.kind == RequestKind::Main { step: 1 })
        .unwrap_or_else(|| panic!("no second main request; {context}"));
    let results = second.tool_results();
    assert!(
        results
            .iter()
            .any(|t| t.tool_use_id == "toolu_scripted_0_0" && t.text.contains("wrote-it")),
        "tool_result not posted back: {results:?}; {context}"
    );
    assert!(
        second.header("x-api-key") == Some("test-key"),
        "the API key did not reach the server; {context}"
    );

    // stream-json: the final text and usage are there.
    let events = stream_events(&out.stdout);
    let result = events
        .iter()
        .find(|e| e["type"] == "result")
        .unwrap_or_else(|| panic!("no result event; {context}"));
    assert_eq!(result["subtype"], "success", "{context}");
    let final_text = result["result"].as_str().unwrap_or_default();
    assert!(
        final_text.contains("SCRIPTED-FINAL"),
        "final text missing: {final_text:?}; {context}"
    );
    assert!(!stdout.contains("SCRIPTED-WRONG-BRANCH"), "{context}");
    let usage = &result["usage"];
    assert!(
        usage["input_tokens"].as_u64().unwrap_or(0) > 0
            && usage["output_tokens"].as_u64().unwrap_or(0) > 0,
        "usage missing from the result: {usage}; {context}"
    );
    // The assistant events carry the scripted tool call.
    assert!(
        events.iter().any(|e| e["type"] == "assistant"
            && e["message"]["content"].as_array().is_some_and(|c| c
                .iter()
                .any(|b| b["type"] == "tool_use" && b["name"] == "Bash"))),
        "no Bash tool_use in the stream; {context}"
    );
    server.stop();
}

fn main_steps(requests: &[RecordedRequest]) -> Vec<usize> {
    requests
        .iter()
        .filter_map(|r| match r.kind {
            RequestKind::Main { step } => Some(step),
            _ => None,
        })
        .collect()
}

/// The text of the tool results the request for `step` carried back for the step before it.
fn results_before(requests: &[RecordedRequest], step: usize) -> String {
    let request = requests
        .iter()
        .find(|r| r.kind == RequestKind::Main { step })
        .unwrap_or_else(|| panic!("no main request for step {step}"));
    request
        .tool_results()
        .into_iter()
        .filter(|t| {
            t.tool_use_id
                .starts_with(&format!("toolu_scripted_{}_", step - 1))
        })
        .map(|t| t.text)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn real_claude_follows_a_branching_script_with_read_edit_rerun_and_a_skill() {
    let script = Script::from_str(
        r#"
end_text = "SCRIPTED-END"

[[turn]]
id = "check"
tool = "Bash"
input = { command = "sh check.sh" }

[[turn]]
when_result_contains = "CHECK FAILED"
max_visits = 2
goto = "check"
[[turn.calls]]
tool = "Read"
input = { file_path = "calc.py" }
[[turn.calls]]
tool = "Edit"
input = { file_path = "calc.py", old_string = "return a - b", new_string = "return a + b" }

[[turn]]
when_result_contains = "CHECK PASSED"
tool = "Skill"
input = { skill = "demo-skill" }

[[turn]]
when_result_contains = "demo-skill"
text = "SCRIPTED-FINAL: fixed and verified."

[[turn]]
text = "SCRIPTED-WRONG-BRANCH"
"#,
    )
    .expect("valid script");
    let server = ScriptedServer::start(script).expect("server starts");
    let home = tempfile::tempdir().expect("home dir");
    let project = tempfile::tempdir().expect("project dir");
    let skill_dir = home.path().join(".claude/skills/demo-skill");
    std::fs::create_dir_all(&skill_dir).unwrap();
    std::fs::write(
        skill_dir.join("SKILL.md"),
        "---\nname: demo-skill\ndescription: Demo skill for the scripted-api tests.\n---\n\nDEMO-SKILL-BODY: verify before you claim.\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("calc.py"),
        "def add(a, b):\n    return a - b\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("check.sh"),
        "if grep -q 'return a + b' calc.py; then echo 'CHECK PASSED'; else echo 'CHECK FAILED'; exit 1; fi\n",
    )
    .unwrap();

    let out = run_claude(
        &server,
        home.path(),
        project.path(),
        "Fix add() in calc.py.",
    );
    let requests = server.requests();
    let context = format!(
        "status: {:?}\nrequests:\n{}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        describe(&requests),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{context}");

    // The Read + Edit pair in one turn ran in order and changed the file.
    let calc = std::fs::read_to_string(project.path().join("calc.py")).unwrap();
    assert_eq!(calc, "def add(a, b):\n    return a + b\n", "{context}");

    // check (fails) -> fix -> check (passes) -> skill -> final text.
    assert_eq!(main_steps(&requests), [0, 1, 2, 3, 4], "{context}");
    assert!(
        results_before(&requests, 1).contains("CHECK FAILED"),
        "{context}"
    );
    let fix = results_before(&requests, 2);
    assert!(
        fix.contains("return a - b"),
        "Read result missing: {fix}; {context}"
    );
    assert!(
        fix.contains("updated successfully"),
        "Edit result missing: {fix}; {context}"
    );
    assert!(
        results_before(&requests, 3).contains("CHECK PASSED"),
        "{context}"
    );
    assert!(
        results_before(&requests, 4).contains("demo-skill"),
        "{context}"
    );
    // The skill's body reached the model in the conversation.
    let last = requests
        .iter()
        .find(|r| r.kind == RequestKind::Main { step: 4 })
        .unwrap();
    assert!(
        last.body
            .as_ref()
            .unwrap()
            .to_string()
            .contains("DEMO-SKILL-BODY"),
        "skill body not in the conversation; {context}"
    );

    let events = stream_events(&out.stdout);
    let result = events
        .iter()
        .find(|e| e["type"] == "result")
        .expect("result event");
    assert_eq!(
        result["result"], "SCRIPTED-FINAL: fixed and verified.",
        "{context}"
    );
    assert!(
        events.iter().any(|e| e["type"] == "assistant"
            && e["message"]["content"].as_array().is_some_and(|c| c
                .iter()
                .any(|b| b["name"] == "Skill" && b["input"]["skill"] == "demo-skill"))),
        "no Skill call in the stream; {context}"
    );
    let out_text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out_text.contains("SCRIPTED-WRONG-BRANCH") && !out_text.contains("SCRIPTED-END"),
        "{context}"
    );
    server.stop();
}

#[test]
fn real_claude_retries_after_transient_errors_and_each_tool_runs_once() {
    let script = Script::from_str(
        r#"
transient_errors = 1

[[turn]]
tool = "Bash"
input = { command = "echo ran >> runs.log && echo appended" }

[[turn]]
when_result_contains = "appended"
text = "SCRIPTED-FINAL after retries."
"#,
    )
    .expect("valid script");
    let server = ScriptedServer::start(script).expect("server starts");
    let home = tempfile::tempdir().expect("home dir");
    let project = tempfile::tempdir().expect("project dir");

    let out = run_claude(&server, home.path(), project.path(), "Append to the log.");
    let requests = server.requests();
    let context = format!(
        "status: {:?}\nrequests:\n{}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        describe(&requests),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{context}");
    // Each step was first refused with 529, then retried with the same conversation.
    let main: Vec<(usize, u16)> = requests
        .iter()
        .filter_map(|r| match r.kind {
            RequestKind::Main { step } => Some((step, r.status)),
            _ => None,
        })
        .collect();
    assert_eq!(main, [(0, 529), (0, 200), (1, 529), (1, 200)], "{context}");
    // A retry re-sends the same conversation (Claude Code retries in its own loop, so
    // `x-stainless-retry-count` stays 0; the stream reports `api_retry` events instead).
    for step in [0, 1] {
        let attempts: Vec<&Value> = requests
            .iter()
            .filter(|r| r.kind == RequestKind::Main { step })
            .map(|r| &r.body.as_ref().unwrap()["messages"])
            .collect();
        assert_eq!(attempts[0], attempts[1], "step {step}; {context}");
    }
    let retries = stream_events(&out.stdout)
        .into_iter()
        .filter(|e| {
            e["type"] == "system" && e["subtype"] == "api_retry" && e["error_status"] == 529
        })
        .count();
    assert_eq!(retries, 2, "{context}");
    // The scripted tool ran exactly once.
    let log = std::fs::read_to_string(project.path().join("runs.log")).unwrap();
    assert_eq!(log, "ran\n", "{context}");
    let events = stream_events(&out.stdout);
    let result = events
        .iter()
        .find(|e| e["type"] == "result")
        .expect("result event");
    assert_eq!(
        result["result"], "SCRIPTED-FINAL after retries.",
        "{context}"
    );
    server.stop();
}

#[test]
fn real_claude_subagents_do_not_replay_the_main_script() {
    let script = Script::from_str(
        r#"
side_text = "SUBAGENT-SIDE-ANSWER"

[[turn]]
tool = "Bash"
input = { command = "echo ran >> runs.log && echo appended" }

[[turn]]
tool = "Agent"
input = { description = "Look around", prompt = "List the files.", subagent_type = "general-purpose" }

[[turn]]
text = "SCRIPTED-FINAL after the subagent."
"#,
    )
    .expect("valid script");
    let server = ScriptedServer::start(script).expect("server starts");
    let home = tempfile::tempdir().expect("home dir");
    let project = tempfile::tempdir().expect("project dir");

    let out = run_claude(
        &server,
        home.path(),
        project.path(),
        "Delegate a look around.",
    );
    let requests = server.requests();
    let context = format!(
        "status: {:?}\nrequests:\n{}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        describe(&requests),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{context}");
    assert!(
        requests.iter().any(|r| r.kind == RequestKind::Subagent),
        "no subagent request seen; {context}"
    );
    // Claude Code 2.1 runs `Agent` in the background: the main conversation goes on at once, and
    // the agent's completion notice may arrive later as one more main request (answered with
    // `end_text`). Each scripted step is played once.
    let steps = main_steps(&requests);
    assert_eq!(steps[..3], [0, 1, 2], "{context}");
    // Had the subagent replayed the script, it would have run the Bash call again.
    let log = std::fs::read_to_string(project.path().join("runs.log")).unwrap();
    assert_eq!(log, "ran\n", "{context}");
    let events = stream_events(&out.stdout);
    let said = |text: &str, parent: Value| {
        events.iter().any(|e| {
            e["type"] == "assistant"
                && e["parent_tool_use_id"] == parent
                && e["message"]["content"][0]["text"] == text
        })
    };
    assert!(
        said("SUBAGENT-SIDE-ANSWER", Value::from("toolu_scripted_1_0")),
        "the subagent did not get the side answer; {context}"
    );
    assert!(
        said("SCRIPTED-FINAL after the subagent.", Value::Null),
        "{context}"
    );
    server.stop();
}

#[test]
fn real_claude_runs_against_one_server_get_the_agent_their_prompt_names() {
    let script = Script::from_str(
        r#"
[[turn]]
text = "SCRIPTED-UNCLAIMED"

[[agent]]
when_prompt_contains = "scenario: writer"
[[agent.turn]]
tool = "Write"
input = { file_path = "written.txt", content = "by the writer agent\n" }
[[agent.turn]]
text = "SCRIPTED-WRITER-DONE"

[[agent]]
when_prompt_contains = "scenario: lazy"
[[agent.turn]]
text = "SCRIPTED-LAZY-CLAIM: all tests pass."
"#,
    )
    .expect("valid script");
    let server = ScriptedServer::start(script).expect("server starts");
    let writer_home = tempfile::tempdir().expect("home dir");
    let lazy_home = tempfile::tempdir().expect("home dir");
    let writer_project = tempfile::tempdir().expect("project dir");
    let lazy_project = tempfile::tempdir().expect("project dir");

    // Both agents run at the same time against the same server, as a suite run with --jobs would.
    let (writer, lazy) = std::thread::scope(|s| {
        let w = s.spawn(|| {
            run_claude(
                &server,
                writer_home.path(),
                writer_project.path(),
                "scenario: writer\nWrite the file.",
            )
        });
        let l = s.spawn(|| {
            run_claude(
                &server,
                lazy_home.path(),
                lazy_project.path(),
                "scenario: lazy\nFix the bug.",
            )
        });
        (w.join().unwrap(), l.join().unwrap())
    });
    let context = format!(
        "requests:\n{}\nwriter:\n{}\nlazy:\n{}",
        describe(&server.requests()),
        String::from_utf8_lossy(&writer.stdout),
        String::from_utf8_lossy(&lazy.stdout)
    );
    assert!(
        writer.status.success() && lazy.status.success(),
        "{context}"
    );
    let result = |out: &Output| {
        stream_events(&out.stdout)
            .into_iter()
            .find(|e| e["type"] == "result")
            .map(|e| e["result"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(result(&writer), "SCRIPTED-WRITER-DONE", "{context}");
    assert_eq!(
        result(&lazy),
        "SCRIPTED-LAZY-CLAIM: all tests pass.",
        "{context}"
    );
    assert_eq!(
        std::fs::read_to_string(writer_project.path().join("written.txt")).unwrap(),
        "by the writer agent\n",
        "{context}"
    );
    assert!(
        !lazy_project.path().join("written.txt").exists(),
        "{context}"
    );
    server.stop();
}

#[test]
fn real_claude_candidate_and_baseline_runs_get_different_agents_by_installed_skill() {
    // The same prompt; the candidate run has the skill installed in its HOME, the baseline not.
    let script = Script::from_str(
        r#"
[[agent]]
when_prompt_contains = "Fix the bug"
when_context_contains = "- verify-first:"
[[agent.turn]]
tool = "Bash"
input = { command = "echo verified > verified.txt && echo ok" }
[[agent.turn]]
text = "SCRIPTED-CANDIDATE: verified."

[[agent]]
when_prompt_contains = "Fix the bug"
when_context_not_contains = "- verify-first:"
[[agent.turn]]
text = "SCRIPTED-BASELINE: claimed without checking."
"#,
    )
    .expect("valid script");
    let server = ScriptedServer::start(script).expect("server starts");
    let candidate_home = tempfile::tempdir().expect("home dir");
    let baseline_home = tempfile::tempdir().expect("home dir");
    let skill_dir = candidate_home.path().join(".claude/skills/verify-first");
    std::fs::create_dir_all(&skill_dir).unwrap();
    std::fs::write(
        skill_dir.join("SKILL.md"),
        "---\nname: verify-first\ndescription: Run the tests before claiming success.\n---\n\nRun the tests.\n",
    )
    .unwrap();
    let candidate_project = tempfile::tempdir().expect("project dir");
    let baseline_project = tempfile::tempdir().expect("project dir");

    let candidate = run_claude(
        &server,
        candidate_home.path(),
        candidate_project.path(),
        "Fix the bug.",
    );
    let baseline = run_claude(
        &server,
        baseline_home.path(),
        baseline_project.path(),
        "Fix the bug.",
    );
    let context = format!(
        "requests:\n{}\ncandidate:\n{}\nbaseline:\n{}",
        describe(&server.requests()),
        String::from_utf8_lossy(&candidate.stdout),
        String::from_utf8_lossy(&baseline.stdout)
    );
    let result = |out: &Output| {
        stream_events(&out.stdout)
            .into_iter()
            .find(|e| e["type"] == "result")
            .map(|e| e["result"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        result(&candidate),
        "SCRIPTED-CANDIDATE: verified.",
        "{context}"
    );
    assert_eq!(
        result(&baseline),
        "SCRIPTED-BASELINE: claimed without checking.",
        "{context}"
    );
    assert!(
        candidate_project.path().join("verified.txt").exists(),
        "{context}"
    );
    assert!(
        !baseline_project.path().join("verified.txt").exists(),
        "{context}"
    );
    server.stop();
}
