//! `warrant demo`: runs the bundled examples end to end, offline.
//!
//! Part 1 reviews the lesson's seven demonstration requests against `examples/policy.toml`. The
//! other parts (package inspection, the sandbox, evaluation) come from their command groups.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use clap::Args as ClapArgs;
use warrant_policy::{ActionRequest, Approval, Policy, review_at};

use crate::exit::{CmdResult, Failure, OK};

/// Arguments of `warrant demo`.
#[derive(Debug, ClapArgs)]
#[command(
    after_help = "EXAMPLE:\n  warrant demo\n  warrant demo --part decisions\n\nRuns offline; needs only the build (and the repository's examples/ folder)."
)]
pub struct Args {
    /// The examples folder (default: `examples/` of the repository this binary was built from, or
    /// of the current directory).
    #[arg(long, env = "WARRANT_EXAMPLES")]
    pub examples: Option<PathBuf>,
    /// Run only one part.
    #[arg(long, value_parser = ["decisions", "package", "sandbox", "audit", "eval"])]
    pub part: Option<String>,
}

/// Finds the examples folder.
pub fn examples_dir(explicit: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(dir) = explicit {
        return Ok(dir);
    }
    let mut candidates = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")];
    if let Ok(cwd) = std::env::current_dir() {
        candidates.push(cwd.join("examples"));
    }
    candidates
        .into_iter()
        .find(|c| c.join("policy.toml").is_file())
        .map(|c| c.canonicalize().unwrap_or(c))
        .context("cannot find the examples folder; pass --examples DIR or set WARRANT_EXAMPLES")
}

/// Runs the demo.
pub fn run(args: Args) -> CmdResult {
    let examples = examples_dir(args.examples).map_err(Failure::invalid)?;
    // Every part finds its bundled files relative to the repository root.
    if let Some(root) = examples.parent() {
        std::env::set_current_dir(root).with_context(|| format!("entering {}", root.display()))?;
    }
    let mut out = std::io::stdout().lock();
    let want = |p: &str| args.part.as_deref().is_none_or(|w| w == p);
    if want("decisions") {
        decisions(&examples, &mut out)?;
    }
    if want("package") {
        writeln!(out)?;
        super::package::demo(&mut out).context("demo part 2 (package trust)")?;
    }
    if want("sandbox") {
        writeln!(out)?;
        super::isolate::demo(&mut out).context("demo part 3 (the sandbox)")?;
    }
    if want("audit") {
        writeln!(out)?;
        super::audit::demo(&mut out).context("demo part 4 (warrants and the audit log)")?;
    }
    if want("eval") {
        writeln!(out)?;
        super::evaluate::demo(&mut out).context("demo part 5 (evaluation)")?;
    }
    Ok(OK)
}

fn load_request(examples: &std::path::Path, name: &str) -> anyhow::Result<ActionRequest> {
    let path = examples.join("requests").join(name);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    ActionRequest::from_json(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Part 1: the lesson's seven demonstration requests.
pub fn decisions(examples: &std::path::Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let policy_path = examples.join("policy.toml");
    // Approvals are signed with a key the agent cannot read. The demo makes a throwaway key in a
    // private temporary directory and points the example policy at it.
    let key_dir = std::env::temp_dir().join(format!("warrant-demo-key-{}", std::process::id()));
    std::fs::create_dir_all(&key_dir).context("creating a temporary key directory")?;
    let result = decisions_with_key(examples, out, &policy_path, &key_dir);
    let _ = std::fs::remove_dir_all(&key_dir);
    result
}

fn decisions_with_key(
    examples: &std::path::Path,
    out: &mut dyn Write,
    policy_path: &std::path::Path,
    key_dir: &std::path::Path,
) -> anyhow::Result<()> {
    let key_path = key_dir.join("approval.key");
    let mut key = vec![0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
        .context("reading /dev/urandom")?;
    std::fs::write(&key_path, &key).context("writing the demo approval key")?;
    let text = std::fs::read_to_string(policy_path)
        .with_context(|| format!("reading {}", policy_path.display()))?;
    let text = text.replace(
        "# [approvals]\n# key_file = \"~/.config/warrant/approval.key\"",
        &format!(
            "[approvals]\nkey_file = {:?}",
            key_path.display().to_string()
        ),
    );
    let policy = Policy::from_str_with_base(
        &text,
        warrant_policy::PolicyFormat::Toml,
        examples,
        &policy_path.display().to_string(),
    )?;
    let now = SystemTime::now();
    writeln!(
        out,
        "== 1. decisions: seven requests reviewed against {} ==",
        policy_path.display()
    )?;
    writeln!(
        out,
        "   (review never runs anything; each line is verdict, deciding rule, reason)\n"
    )?;

    let mut cases: Vec<(&str, ActionRequest)> = vec![
        (
            "a read with a claimed permission",
            load_request(examples, "read-with-claim.json")?,
        ),
        (
            "an unapproved write",
            load_request(examples, "unapproved-write.json")?,
        ),
    ];
    // An approved write: a person approves exactly the consequence the review showed.
    let mut approved = load_request(examples, "unapproved-write.json")?;
    let shown = review_at(&policy, &approved, now);
    let mut approval = Approval::new(
        "alice@example.test",
        &shown.request_hash,
        shown.consequence.as_deref().unwrap_or_default(),
        now,
        Duration::from_secs(900),
    );
    approval.sign(&key);
    approved.approval = Some(approval);
    cases.push(("an approved write", approved));
    cases.push(("a path escape", load_request(examples, "path-escape.json")?));
    // An approved destructive command: even a matching approval does not lift a hard limit.
    let mut destructive = load_request(examples, "destructive-command.json")?;
    let shown = review_at(&policy, &destructive, now);
    let mut approval = Approval::new(
        "alice@example.test",
        &shown.request_hash,
        shown.consequence.as_deref().unwrap_or_default(),
        now,
        Duration::from_secs(900),
    );
    approval.sign(&key);
    destructive.approval = Some(approval);
    cases.push(("an approved destructive command", destructive));
    cases.push((
        "an untrusted network request",
        load_request(examples, "untrusted-network.json")?,
    ));
    cases.push((
        "a policy-change attempt",
        load_request(examples, "policy-change.json")?,
    ));

    for (i, (title, request)) in cases.iter().enumerate() {
        let d = review_at(&policy, request, now);
        writeln!(out, "{}. {title}", i + 1)?;
        writeln!(
            out,
            "   verdict: {}   rule: {}",
            d.verdict.as_str().to_uppercase(),
            d.rule
        )?;
        writeln!(out, "   reason:  {}", d.reason)?;
        if d.verdict == warrant_policy::Verdict::Ask {
            writeln!(
                out,
                "   ask the approver: {}",
                d.consequence.as_deref().unwrap_or_default()
            )?;
        }
        if let Some(who) = &d.approved_by {
            writeln!(out, "   approved by {who} for request {}", d.request_hash)?;
        }
        if !d.claimed_permissions_ignored.is_empty() {
            writeln!(
                out,
                "   claimed permissions ignored: {}",
                d.claimed_permissions_ignored.join(", ")
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}
