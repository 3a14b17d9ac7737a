//! Runs every case of `tests/cases.toml` through the library.

use std::path::Path;

use warrant_policy::testkit::{self, Fixture};
use warrant_policy::{ActionRequest, Policy, PolicyFormat, review};

fn fixture() -> (tempfile::TempDir, Fixture) {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = testkit::build_fixture(dir.path()).expect("fixture");
    (dir, fixture)
}

#[test]
fn every_case_decides_as_expected() {
    let cases =
        testkit::load_cases(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases.toml"))
            .expect("cases");
    assert!(
        cases.case.len() >= 150,
        "the table must hold at least 150 cases, has {}",
        cases.case.len()
    );
    let (_dir, fx) = fixture();
    let mut failures = Vec::new();
    for case in &cases.case {
        let policy = Policy::load(&testkit::policy_path(&fx, &case.policy).expect("policy path"))
            .expect("fixture policy loads");
        let text = testkit::request_text(case, &fx, &policy).expect("request text");
        let outcome = match ActionRequest::from_json(&text) {
            Err(err) => {
                let mut problems = Vec::new();
                if case.verdict != "invalid" {
                    problems.push(format!(
                        "expected {}, got invalid input: {err}",
                        case.verdict
                    ));
                }
                if let Some(field) = &case.field
                    && err.field() != Some(field.as_str())
                {
                    problems.push(format!(
                        "expected field `{field}`, got {:?} ({err})",
                        err.field()
                    ));
                }
                if let Some(m) = &case.message
                    && !err.to_string().contains(m.as_str())
                {
                    problems.push(format!("message `{err}` lacks `{m}`"));
                }
                problems
            }
            Ok(request) => {
                let d = review(&policy, &request);
                let mut problems = Vec::new();
                if d.verdict.as_str() != case.verdict {
                    problems.push(format!(
                        "expected {}, got {} by {} ({})",
                        case.verdict,
                        d.verdict.as_str(),
                        d.rule,
                        d.reason
                    ));
                }
                if let Some(rule) = &case.rule
                    && &d.rule != rule
                {
                    problems.push(format!(
                        "expected rule {rule}, got {} ({})",
                        d.rule, d.reason
                    ));
                }
                for rule in &case.has {
                    if !d.findings.iter().any(|f| &f.rule == rule) {
                        problems.push(format!(
                            "expected a {rule} finding among {:?}",
                            d.findings.iter().map(|f| &f.rule).collect::<Vec<_>>()
                        ));
                    }
                }
                assert!(!d.executed);
                problems
            }
        };
        if !outcome.is_empty() {
            failures.push(format!("{}: {}", case.name, outcome.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_malformed_policy_is_reported_with_its_field_and_line() {
    let cases =
        testkit::load_cases(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases.toml"))
            .expect("cases");
    let (_dir, fx) = fixture();
    let mut failures = Vec::new();
    for case in &cases.policy_case {
        match Policy::from_str_with_base(&case.toml, PolicyFormat::Toml, &fx.root, "<case>") {
            Ok(_) => failures.push(format!("{}: the policy was accepted", case.name)),
            Err(err) => {
                let problems = err.problems();
                match problems.iter().find(|p| p.field == case.field) {
                    None => failures.push(format!(
                        "{}: no problem for `{}` in {problems:?}",
                        case.name, case.field
                    )),
                    Some(p) => {
                        if case.line.is_some() && p.line != case.line {
                            failures.push(format!(
                                "{}: `{}` at line {:?}, expected {:?}",
                                case.name, case.field, p.line, case.line
                            ));
                        }
                        if let Some(m) = &case.message
                            && !p.message.contains(m.as_str())
                        {
                            failures.push(format!(
                                "{}: message `{}` lacks `{m}`",
                                case.name, p.message
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
