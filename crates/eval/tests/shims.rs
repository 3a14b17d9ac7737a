//! The evidence shims, run for real: which invocations are counted, how they are classified, and
//! which tampering the harness notices.

use std::path::{Path, PathBuf};
use std::process::Command;

use warrant_eval::evidence::{self, Outcome};
use warrant_eval::fsutil::source_digest;
use warrant_eval::shim::{self, ShimConfig};

struct Setup {
    _dir: tempfile::TempDir,
    cfg: ShimConfig,
    bin: PathBuf,
    project: PathBuf,
}

fn setup(test_body: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    let bin = dir.path().join("bin");
    let ev = dir.path().join("ev");
    for d in [&project, &bin, &ev] {
        std::fs::create_dir(d).unwrap();
    }
    std::fs::write(project.join("test_x.py"), test_body).unwrap();
    let cfg = ShimConfig {
        nonce: "0123456789abcdef0123456789abcdef".into(),
        evidence_dir: ev,
        real_python: "/usr/bin/python3".into(),
        project: project.clone(),
        pycache_prefix: dir.path().join("pyc"),
    };
    shim::install(&cfg, &bin).unwrap();
    Setup {
        _dir: dir,
        cfg,
        bin,
        project,
    }
}

fn sh(s: &Setup, cmd: &str) -> i32 {
    Command::new("/bin/sh")
        .args(["-c", cmd])
        .current_dir(&s.project)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", s.bin.display()))
        .env("HOME", &s.project)
        .status()
        .unwrap()
        .code()
        .unwrap()
}

const PASSING: &str = "def test_ok():\n    assert True\n";

#[test]
fn only_pytest_invocations_are_counted() {
    let s = setup(PASSING);
    assert_eq!(sh(&s, "python -c 'print(\"pytest\")' >/dev/null"), 0);
    assert_eq!(sh(&s, "python3 -c 'import sys' -m pytest"), 0);
    assert_eq!(
        sh(&s, "echo 'print(1)' > run.py && python run.py >/dev/null"),
        0
    );
    assert_eq!(evidence::read(&s.cfg).runs.len(), 0);
    assert_eq!(sh(&s, "python -m pytest -q >/dev/null"), 0);
    assert_eq!(sh(&s, "python3 -mpytest -q >/dev/null"), 0);
    assert_eq!(sh(&s, "python -Bm pytest -q >/dev/null"), 0);
    assert_eq!(sh(&s, "pytest -q >/dev/null"), 0);
    assert_eq!(sh(&s, "pytest --version >/dev/null 2>&1"), 0);
    let ev = evidence::read(&s.cfg);
    assert!(ev.findings.is_empty(), "{:?}", ev.findings);
    let outcomes: Vec<Outcome> = ev.runs.iter().map(|r| r.outcome).collect();
    use Outcome::*;
    assert_eq!(outcomes, [Success, Success, Success, Success, Inconclusive]);
    // The shim's digest is the harness's digest, byte for byte.
    assert_eq!(ev.runs[0].digest, source_digest(&s.project).unwrap());
}

#[test]
fn strict_classification_of_real_runs() {
    let s = setup("import pytest\ndef test_skip():\n    pytest.skip('x')\n");
    sh(&s, "pytest -q >/dev/null");
    std::fs::write(
        s.project.join("test_x.py"),
        "def test_bad():\n    assert False\n",
    )
    .unwrap();
    sh(&s, "pytest -q >/dev/null");
    std::fs::write(s.project.join("test_x.py"), "import nonexistent_module\n").unwrap();
    sh(&s, "pytest -q >/dev/null 2>&1");
    std::fs::write(s.project.join("test_x.py"), "x = 1\n").unwrap();
    sh(&s, "pytest -q >/dev/null 2>&1");
    let ev = evidence::read(&s.cfg);
    let outcomes: Vec<Outcome> = ev.runs.iter().map(|r| r.outcome).collect();
    use Outcome::*;
    assert_eq!(outcomes, [Inconclusive, Failure, Failure, Inconclusive]);
}

#[test]
fn attempt_number_comes_from_the_shim_not_the_agent() {
    let s = setup(
        "import os\ndef test_attempt():\n    assert os.environ['WARRANT_EVAL_ATTEMPT'] == '1'\n",
    );
    assert_eq!(sh(&s, "WARRANT_EVAL_ATTEMPT=7 pytest -q >/dev/null"), 0);
    let ev = evidence::read(&s.cfg);
    assert_eq!(ev.runs[0].outcome, Outcome::Success);
}

#[test]
fn a_shadowing_pytest_module_is_not_imported() {
    let s = setup("def test_bad():\n    assert False\n");
    std::fs::write(
        s.project.join("pytest.py"),
        "print('1 passed')\nraise SystemExit(0)\n",
    )
    .unwrap();
    assert_ne!(sh(&s, "python -m pytest -q >/dev/null"), 0);
    assert_eq!(evidence::read(&s.cfg).runs[0].outcome, Outcome::Failure);
}

#[test]
fn stale_bytecode_is_not_used() {
    let s = setup("from m import V\ndef test_v():\n    assert V == 2\n");
    let m = s.project.join("m.py");
    std::fs::write(&m, "V = 1\n").unwrap();
    sh(&s, "pytest -q >/dev/null");
    // Same size, mtime restored: a timestamp-validated cache would serve the old bytecode.
    let before = std::fs::metadata(&m).unwrap().modified().unwrap();
    std::fs::write(&m, "V = 2\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&m)
        .unwrap()
        .set_modified(before)
        .unwrap();
    sh(&s, "python -B -m pytest -q >/dev/null");
    let ev = evidence::read(&s.cfg);
    assert_eq!(ev.runs[0].outcome, Outcome::Failure);
    assert_eq!(ev.runs[1].outcome, Outcome::Success);
}

fn log_path(s: &Setup) -> PathBuf {
    s.cfg.log_path()
}

#[test]
fn tampering_with_the_evidence_is_reported() {
    let s = setup(PASSING);
    sh(&s, "pytest -q >/dev/null");
    let junit_dir = s.cfg.junit_dir();
    let junit = std::fs::read_dir(&junit_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    // A foreign nonce, and a changed JUnit file.
    let mut log = std::fs::read_to_string(log_path(&s)).unwrap();
    log.push_str(&log.replace(
        "0123456789abcdef0123456789abcdef",
        "ffffffffffffffffffffffffffffffff",
    ));
    std::fs::write(log_path(&s), log).unwrap();
    let xml = std::fs::read_to_string(&junit).unwrap();
    std::fs::write(&junit, xml.replace("tests=\"1\"", "tests=\"1\" ")).unwrap();
    let ev = evidence::read(&s.cfg);
    assert_eq!(ev.foreign_lines, 2);
    assert!(
        ev.findings.iter().any(|f| f.contains("foreign nonce")),
        "{:?}",
        ev.findings
    );
    assert!(
        ev.findings
            .iter()
            .any(|f| f.contains("changed after the run")),
        "{:?}",
        ev.findings
    );
    assert_eq!(ev.runs[0].outcome, Outcome::Inconclusive);
    // A JUnit file replaced by a symlink to a passing one.
    std::fs::remove_file(&junit).unwrap();
    let fake = Path::new(&junit_dir).join("../fake.xml");
    std::fs::write(&fake, xml).unwrap();
    std::os::unix::fs::symlink(&fake, &junit).unwrap();
    let ev = evidence::read(&s.cfg);
    assert!(
        ev.findings.iter().any(|f| f.contains("unreadable")),
        "{:?}",
        ev.findings
    );
    assert_eq!(ev.runs[0].outcome, Outcome::Inconclusive);
}
