//! The script format: parsing (TOML and JSON), validation errors, and turn selection.

use warrant_scripted_api::{Agent, Choice, Error, Script, ToolCall, Turn};

fn results(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|s| (*s).to_owned()).collect()
}

const RERUN_UNTIL_GREEN: &str = r#"
end_text = "out of script"

[[turn]]
id = "test"
tool = "Bash"
input = { command = "python -m pytest -q" }

[[turn]]
when_result_contains = "failed"
max_visits = 3
goto = "test"
[[turn.calls]]
tool = "Read"
input = { file_path = "calc.py" }
[[turn.calls]]
tool = "Edit"
input = { file_path = "calc.py", old_string = "a - b", new_string = "a + b" }

[[turn]]
when_result_contains = "passed"
when_result_not_contains = ["failed", "error"]
text = "All tests pass."

[[turn]]
text = "Tests still fail; I did not get them green."
"#;

#[test]
fn toml_script_parses_with_shorthand_and_calls() {
    let script = Script::from_str(RERUN_UNTIL_GREEN).unwrap();
    assert_eq!(script.turns.len(), 4);
    assert_eq!(
        script.turns[0].tool_calls(),
        vec![ToolCall::bash("python -m pytest -q")]
    );
    assert_eq!(script.turns[1].tool_calls().len(), 2);
    assert_eq!(script.turns[1].tool_calls()[1].tool, "Edit");
    assert_eq!(
        script.turns[2].when_result_not_contains,
        vec!["failed".to_owned(), "error".to_owned()]
    );
    assert_eq!(script.end_text(), "out of script");
    assert_eq!(script.side_text(), "OK");
    assert_eq!(script.main_tool(), "Bash");
}

#[test]
fn json_script_parses_the_same_as_toml() {
    let toml = Script::from_str(RERUN_UNTIL_GREEN).unwrap();
    let json = serde_json::to_string(&toml).unwrap();
    assert!(json.contains("\"turn\""));
    assert_eq!(Script::from_str(&json).unwrap(), toml);
    let with_alias =
        r#"{"turns": [{"tool": "Bash", "input": {"command": "ls"}}, {"text": "done"}]}"#;
    let parsed = Script::from_json(with_alias).unwrap();
    assert_eq!(parsed.turns.len(), 2);
}

#[test]
fn from_path_picks_the_format_by_extension_and_names_the_file_on_error() {
    let dir = tempfile::tempdir().unwrap();
    let toml_path = dir.path().join("agent.toml");
    std::fs::write(&toml_path, RERUN_UNTIL_GREEN).unwrap();
    assert_eq!(Script::from_path(&toml_path).unwrap().turns.len(), 4);

    let json_path = dir.path().join("agent.json");
    std::fs::write(&json_path, r#"{"turn": [{"text": "hi"}]}"#).unwrap();
    assert_eq!(
        Script::from_path(&json_path).unwrap().turns[0]
            .text
            .as_deref(),
        Some("hi")
    );

    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[[turn]]\ntool = \"Bash\"\ninput = \"ls\"\n").unwrap();
    let err = Script::from_path(&bad).unwrap_err().to_string();
    assert!(
        err.contains("bad.toml") && err.contains("turn 1") && err.contains("not an object"),
        "{err}"
    );

    let missing = dir.path().join("missing.toml");
    let err = Script::from_path(&missing).unwrap_err();
    assert!(matches!(err, Error::Read { .. }), "{err}");
}

#[test]
fn invalid_scripts_are_refused_with_the_turn_and_the_fix() {
    let cases = [
        ("[[turn]]\nid = \"a\"\n", "neither tool calls nor `text`"),
        (
            "[[turn]]\ntool = \"Bash\"\n[[turn.calls]]\ntool = \"Read\"\n",
            "both `tool` and `calls`",
        ),
        (
            "[[turn]]\ninput = { command = \"ls\" }\ntext = \"x\"\n",
            "`input` without `tool`",
        ),
        ("[[turn]]\ntool = \" \"\n", "empty `tool`"),
        ("[[turn]]\nbash = \"ls\"\n", "unknown field"),
        (
            "[[turn]]\nid = \"a\"\ntext = \"x\"\n[[turn]]\nid = \"a\"\ntext = \"y\"\n",
            "already used by turn 1",
        ),
        (
            "[[turn]]\ntool = \"Bash\"\ngoto = \"nowhere\"\n",
            "no turn has that `id`",
        ),
        (
            "[[turn]]\nid = \"a\"\ntext = \"x\"\ngoto = \"a\"\n",
            "final text but has `goto`",
        ),
        (
            "[[turn]]\ntext = \"x\"\nmax_visits = 0\n",
            "`max_visits` is 0",
        ),
        (
            "max_steps = 0\n[[turn]]\ntext = \"x\"\n",
            "`max_steps` is 0",
        ),
        ("[[turn]\n", "invalid TOML"),
        ("{\"turn\": 3}", "invalid JSON"),
    ];
    for (text, expected) in cases {
        let err = Script::from_str(text).unwrap_err().to_string();
        assert!(
            err.contains(expected),
            "{text:?} gave {err:?}, expected {expected:?}"
        );
    }
}

#[test]
fn first_turn_with_a_result_condition_is_skipped_before_any_tool_ran() {
    let script = Script::new(vec![
        Turn::bash("never").when_result_contains("x"),
        Turn::bash("first"),
    ]);
    assert_eq!(script.choose(&[]), Choice::Turn(1));
    let negative = Script::new(vec![Turn::text("ok").when_result_not_contains("x")]);
    assert_eq!(negative.choose(&[]), Choice::Turn(0));
}

#[test]
fn honest_agent_reruns_until_green_then_reports_success() {
    let script = Script::from_str(RERUN_UNTIL_GREEN).unwrap();
    // Step 0: run the tests.
    assert_eq!(script.choose(&[]), Choice::Turn(0));
    // They fail: fix, then back to the test turn.
    assert_eq!(
        script.choose(&results(&["1 failed, 2 passed"])),
        Choice::Turn(1)
    );
    assert_eq!(
        script.choose(&results(&["1 failed, 2 passed", "edited"])),
        Choice::Turn(0)
    );
    // Green: the success text.
    assert_eq!(
        script.choose(&results(&["1 failed, 2 passed", "edited", "3 passed"])),
        Choice::Turn(2)
    );
}

#[test]
fn loops_are_bounded_by_max_visits_and_fall_through_to_the_honest_text() {
    let script = Script::from_str(RERUN_UNTIL_GREEN).unwrap();
    let mut history = Vec::new();
    let mut played = Vec::new();
    loop {
        let choice = script.choose(&history);
        played.push(choice.clone());
        match choice {
            Choice::Turn(0) => history.push("1 failed".to_owned()),
            Choice::Turn(1) => history.push("edited".to_owned()),
            other => {
                assert_eq!(other, Choice::Turn(3), "{played:?}");
                break;
            }
        }
        assert!(played.len() < 20, "no end: {played:?}");
    }
    let fixes = played.iter().filter(|c| **c == Choice::Turn(1)).count();
    assert_eq!(fixes, 3, "max_visits = 3: {played:?}");
}

#[test]
fn choice_depends_only_on_the_conversation_so_retries_repeat_it() {
    let script = Script::from_str(RERUN_UNTIL_GREEN).unwrap();
    let history = results(&["1 failed", "edited"]);
    let first = script.choose(&history);
    for _ in 0..5 {
        assert_eq!(script.choose(&history), first);
    }
}

#[test]
fn exhausted_script_and_step_limit_end_the_conversation() {
    let script = Script::new(vec![Turn::bash("ls")]);
    assert_eq!(script.choose(&[]), Choice::Turn(0));
    assert_eq!(script.choose(&results(&["a"])), Choice::End);

    let mut looping = Script::new(vec![Turn::bash("ls").with_id("again").with_goto("again")]);
    looping.max_steps = Some(4);
    assert_eq!(looping.choose(&results(&["a", "b", "c"])), Choice::Turn(0));
    assert_eq!(looping.choose(&results(&["a", "b", "c", "d"])), Choice::End);
}

#[test]
fn nothing_is_played_after_a_final_text() {
    // A client that keeps talking after our final text (it should not) gets the end text, not a
    // later turn.
    let script = Script::new(vec![Turn::text("done"), Turn::bash("rm -rf /")]);
    assert_eq!(script.choose(&[]), Choice::Turn(0));
    assert_eq!(script.choose(&results(&[""])), Choice::End);
}

#[test]
fn skipped_branches_stay_behind_the_cursor() {
    let script = Script::new(vec![
        Turn::bash("pytest"),
        Turn::bash("fix").when_result_contains("failed"),
        Turn::bash("pytest again"),
        Turn::text("done"),
    ]);
    // Passed at once: the fix is skipped, and never comes back later.
    assert_eq!(script.choose(&results(&["2 passed"])), Choice::Turn(2));
    assert_eq!(
        script.choose(&results(&["2 passed", "1 failed"])),
        Choice::Turn(3)
    );
}

/// Every TOML and JSON example in docs/scripted-agent.md is a valid script.
#[test]
fn documented_examples_parse() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scripted-agent.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let mut checked = 0;
    let mut rest = doc.as_str();
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let (lang, body_and_rest) = after.split_once('\n').unwrap();
        let end = body_and_rest.find("```").unwrap();
        let body = &body_and_rest[..end];
        if lang == "toml" || lang == "json" {
            Script::from_str(body).unwrap_or_else(|e| {
                panic!("example in {} does not parse: {e}\n{body}", path.display())
            });
            checked += 1;
        }
        rest = &body_and_rest[end + 3..];
    }
    assert!(checked >= 7, "only {checked} examples found");
}

const TWO_AGENTS: &str = r#"
end_text = "default end"

[[turn]]
text = "no agent claimed this prompt"

[[agent]]
when_prompt_contains = "scenario: fix-bug"
[[agent.turn]]
tool = "Bash"
input = { command = "python -m pytest -q" }
[[agent.turn]]
text = "fixed"

[[agent]]
when_prompt_contains = ["scenario: lazy", "claim"]
end_text = "lazy end"
[[agent.turn]]
text = "All tests pass."
"#;

#[test]
fn agents_are_picked_by_the_prompt_and_fall_back_to_top_level_turns() {
    let script = Script::from_str(TWO_AGENTS).unwrap();
    assert_eq!(script.agents.len(), 2);

    let (turns, end) = script.conversation_for(
        "<system-reminder>x</system-reminder>\nscenario: fix-bug\nFix it.",
        "",
    );
    assert_eq!(
        turns[0].tool_calls(),
        vec![ToolCall::bash("python -m pytest -q")]
    );
    assert_eq!(end, "default end");
    assert_eq!(
        script.choose_for("scenario: fix-bug", "", &results(&["1 passed"])),
        Choice::Turn(1)
    );
    assert_eq!(
        script.choose_for("scenario: fix-bug", "", &results(&["1 passed", "x"])),
        Choice::End
    );

    // Every string of `when_prompt_contains` must occur.
    let (turns, end) = script.conversation_for("scenario: lazy, just claim it", "");
    assert_eq!(turns[0].text.as_deref(), Some("All tests pass."));
    assert_eq!(end, "lazy end");
    let (turns, _) = script.conversation_for("scenario: lazy", "");
    assert_eq!(
        turns[0].text.as_deref(),
        Some("no agent claimed this prompt")
    );

    // JSON round trip keeps the agents.
    let json = serde_json::to_string(&script).unwrap();
    assert_eq!(Script::from_str(&json).unwrap(), script);
}

#[test]
fn invalid_agents_are_refused_with_the_agent_number() {
    let cases = [
        (
            "[[agent]]\nwhen_prompt_contains = \"a\"\n",
            "script agent 1: invalid script: has no turns",
        ),
        (
            "[[agent]]\nwhen_prompt_contains = \"\"\n[[agent.turn]]\ntext = \"x\"\n",
            "`when_prompt_contains` is empty",
        ),
        (
            "[[agent]]\n[[agent.turn]]\ntext = \"x\"\n",
            "when_prompt_contains",
        ),
        (
            "[[agent]]\nwhen_prompt_contains = \"a\"\n[[agent.turn]]\ntext = \"x\"\n[[agent]]\nwhen_prompt_contains = \"b\"\n[[agent.turn]]\ntool = \"Bash\"\ngoto = \"nope\"\n",
            "script agent 2: script turn 1 `goto` names `nope`",
        ),
    ];
    for (text, expected) in cases {
        let err = Script::from_str(text).unwrap_err().to_string();
        assert!(
            err.contains(expected),
            "{text:?} gave {err:?}, expected {expected:?}"
        );
    }
}

#[test]
fn agents_can_be_built_in_code() {
    let mut script = Script::new(vec![Turn::text("fallback")]);
    script.agents.push(Agent::new(
        "fix-bug",
        vec![Turn::bash("pytest"), Turn::text("done")],
    ));
    script.validate().unwrap();
    assert_eq!(
        script.choose_for("please fix-bug", "", &[]),
        Choice::Turn(0)
    );
    assert_eq!(
        script.conversation_for("other", "").0[0].text.as_deref(),
        Some("fallback")
    );
}

#[test]
fn agents_can_tell_candidate_from_baseline_by_the_opening_context() {
    let script = Script::from_str(
        r#"
[[agent]]
when_prompt_contains = "Fix the bug"
when_context_contains = "- verify-first:"
[[agent.turn]]
tool = "Bash"
input = { command = "python -m pytest -q" }

[[agent]]
when_prompt_contains = "Fix the bug"
when_context_not_contains = "- verify-first:"
[[agent.turn]]
text = "Fixed, all tests pass."
"#,
    )
    .unwrap();
    let with_skill = "skills available:\n- verify-first: run the tests before claiming";
    let (turns, _) = script.conversation_for("Fix the bug", with_skill);
    assert_eq!(turns[0].tool.as_deref(), Some("Bash"));
    let (turns, _) = script.conversation_for("Fix the bug", "skills available:\n- other: x");
    assert_eq!(turns[0].text.as_deref(), Some("Fixed, all tests pass."));

    let built = Agent::new("Fix", vec![Turn::text("x")])
        .when_context_contains("a")
        .when_context_not_contains("b");
    assert!(built.matches("Fix", "a"));
    assert!(!built.matches("Fix", "a b"));
    assert!(!built.matches("Fix", ""));
}
