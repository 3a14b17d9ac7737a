//! `warrant audit verify|show|reanchor` and `warrant show-warrant` / `warrant check-warrant`:
//! thin glue over `warrant-audit` (formats and limits in docs/audit.md).

use std::path::PathBuf;
use std::time::SystemTime;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use warrant_audit::{AuditError, AuditLog, VerifyOptions, VerifyReport, Warrant, resolve_log_path};
use warrant_policy::secrets::redact;

use crate::exit::{CmdResult, FAILED, Failure, OK};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// For people.
    #[default]
    Text,
    /// For machines.
    Json,
}

/// Subcommands of this group.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The hash-chained audit log: verify, show, re-anchor its head.
    Audit {
        /// What to do with the log.
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Show a warrant file (secrets redacted).
    #[command(after_help = "Example:\n  warrant show-warrant run.warrant.json --format json")]
    ShowWarrant(ShowWarrantArgs),
    /// Re-validate a warrant against the current policy without running it (what `exec --warrant`
    /// checks at launch). Exit 0 valid, 1 refused, 2 unreadable input.
    #[command(
        after_help = "Example:\n  warrant check-warrant run.warrant.json --policy policy.toml"
    )]
    CheckWarrant(CheckWarrantArgs),
}

/// `warrant audit ...`.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Verify the whole log: every record's hash, the chain, the head sidecar and, optionally, a
    /// head kept elsewhere. Exit 0 intact, 1 tampering found, 2 unreadable log.
    #[command(after_help = "\
Examples:
  warrant audit verify
  warrant audit verify --log /var/log/warrant/audit.jsonl --expect-head sha256:9c0f...
  warrant audit verify --format json | jq .head    # keep this head somewhere else

The log path is --log, else $WARRANT_AUDIT_LOG, else .warrant/audit.jsonl.")]
    Verify(VerifyArgs),
    /// Print the records (without verifying them; use `verify` for that), or with --head the
    /// verified head to keep outside the log.
    #[command(after_help = "\
Examples:
  warrant audit show --last 5
  warrant audit show --head > /secure/place/audit-head.txt")]
    Show(ShowArgs),
    /// Re-point the head sidecar at the last record, after a crash between append and head
    /// update or a lost head. Refuses when the chain itself does not verify.
    #[command(
        after_help = "Example:\n  warrant audit reanchor --log .warrant/audit.jsonl --dry-run"
    )]
    Reanchor(ReanchorArgs),
}

/// Arguments of `audit verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The audit log (default: $WARRANT_AUDIT_LOG, else .warrant/audit.jsonl).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// A head hash kept outside the log (from an earlier `verify` or `show --head`): some record
    /// must carry it, which proves that nothing up to it was removed or rewritten.
    #[arg(long, value_name = "HASH")]
    pub expect_head: Option<String>,
    /// Do not compare with the head sidecar `<log>.head` (a truncated tail then goes unseen).
    #[arg(long)]
    pub no_head_file: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Arguments of `audit show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The audit log (default: $WARRANT_AUDIT_LOG, else .warrant/audit.jsonl).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Only the last N records.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Print only the head (last seq and hash) of a log that verifies; exit 1 if it does not.
    #[arg(long)]
    pub head: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Arguments of `audit reanchor`.
#[derive(Debug, Args)]
pub struct ReanchorArgs {
    /// The audit log (default: $WARRANT_AUDIT_LOG, else .warrant/audit.jsonl).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Verify and print the head that would be written, without writing it.
    #[arg(long)]
    pub dry_run: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Arguments of `show-warrant`.
#[derive(Debug, Args)]
pub struct ShowWarrantArgs {
    /// The warrant file.
    pub warrant: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Arguments of `check-warrant`.
#[derive(Debug, Args)]
pub struct CheckWarrantArgs {
    /// The warrant file.
    pub warrant: PathBuf,
    /// The current policy (TOML, or JSON when the name ends in .json).
    #[arg(long, value_name = "FILE")]
    pub policy: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs one subcommand of this group.
pub fn run(command: Command) -> CmdResult {
    match command {
        Command::Audit {
            command: AuditCommand::Verify(a),
        } => verify(a),
        Command::Audit {
            command: AuditCommand::Show(a),
        } => show(a),
        Command::Audit {
            command: AuditCommand::Reanchor(a),
        } => reanchor(a),
        Command::ShowWarrant(a) => show_warrant(a),
        Command::CheckWarrant(a) => check_warrant(a),
    }
}

/// Maps a log error to an exit code: unreadable input is 2.
fn log_failure(e: AuditError) -> Failure {
    Failure::invalid(anyhow::Error::new(e))
}

fn print_json(value: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

fn report_json(log: &std::path::Path, report: &VerifyReport) -> serde_json::Value {
    json!({
        "log": log.display().to_string(),
        "ok": report.ok(),
        "records": report.records,
        "head": report.head,
        "problems": report.problems,
    })
}

/// The text form of a verification report.
pub fn report_text(log: &std::path::Path, report: &VerifyReport) -> String {
    let mut out = format!(
        "audit log: {}\nrecords:   {}\n",
        log.display(),
        report.records
    );
    match &report.head {
        Some(h) => out.push_str(&format!("last:      seq {} {}\n", h.seq, h.hash)),
        None => out.push_str("last:      (empty log)\n"),
    }
    if report.ok() {
        out.push_str("result:    OK, chain intact\n");
    } else {
        out.push_str(&format!(
            "result:    TAMPERED, {} problem(s)\n",
            report.problems.len()
        ));
        for p in &report.problems {
            let at = p
                .line
                .map_or_else(|| "log".to_string(), |l| format!("line {l}"));
            let kind = serde_json::to_value(p.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string));
            out.push_str(&format!(
                "  {at}: {}: {}\n",
                kind.unwrap_or_default(),
                p.detail
            ));
        }
    }
    out
}

fn verify(a: VerifyArgs) -> CmdResult {
    let path = resolve_log_path(a.log.as_deref());
    if let Some(h) = &a.expect_head
        && !warrant_audit::canonical::is_sha256_tagged(h)
    {
        return Err(Failure::invalid(anyhow::anyhow!(
            "--expect-head `{h}` is not a hash: expected `sha256:` and 64 lowercase hex digits"
        )));
    }
    eprintln!("warrant: verifying {}", path.display());
    let options = VerifyOptions {
        check_head_file: !a.no_head_file,
        expect_head: a.expect_head,
    };
    let report = AuditLog::new(&path).verify(&options).map_err(log_failure)?;
    match a.format {
        Format::Json => print_json(&report_json(&path, &report)),
        Format::Text => print!("{}", report_text(&path, &report)),
    }
    Ok(if report.ok() { OK } else { FAILED })
}

fn show(a: ShowArgs) -> CmdResult {
    let path = resolve_log_path(a.log.as_deref());
    let log = AuditLog::new(&path);
    if a.head {
        let report = log.verify(&VerifyOptions::default()).map_err(log_failure)?;
        if !report.ok() {
            eprint!("{}", report_text(&path, &report));
            return Err(Failure::with_code(
                FAILED,
                anyhow::anyhow!(
                    "audit log `{}` does not verify; no head printed",
                    path.display()
                ),
            ));
        }
        match (a.format, &report.head) {
            (Format::Json, h) => print_json(&json!({"log": path.display().to_string(), "head": h})),
            (Format::Text, Some(h)) => println!("{}", h.hash),
            (Format::Text, None) => println!("(empty log)"),
        }
        return Ok(OK);
    }
    let records = log.read_records().map_err(log_failure)?;
    let skip = a.last.map_or(0, |n| records.len().saturating_sub(n));
    let shown = &records[skip..];
    match a.format {
        Format::Json => {
            let mut value = serde_json::to_value(shown).context("serializing records")?;
            warrant_policy::secrets::redact_json(&mut value);
            print_json(&value);
        }
        Format::Text => {
            for r in shown {
                let e = &r.entry;
                let event = serde_json::to_value(e.event)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string));
                let mut line = format!(
                    "#{} {} {} {}",
                    r.seq,
                    r.time,
                    event.unwrap_or_default(),
                    e.actor
                );
                line.push_str(&format!(" argv={:?}", e.what.argv));
                if let Some(v) = &e.verdict {
                    line.push_str(&format!(" verdict={v}"));
                }
                if let Some(o) = &e.outcome {
                    match (o.status, o.signal) {
                        (Some(s), _) => line.push_str(&format!(" status={s}")),
                        (None, Some(sig)) => line.push_str(&format!(" signal={sig}")),
                        (None, None) => line.push_str(" not-started"),
                    }
                    if o.timed_out {
                        line.push_str(" timed-out");
                    }
                    if !o.limits_hit.is_empty() {
                        line.push_str(&format!(" limits={}", o.limits_hit.join(",")));
                    }
                    line.push_str(&format!(" out={}B err={}B", o.stdout_bytes, o.stderr_bytes));
                }
                if let Some(why) = &e.refused {
                    line.push_str(&format!(" REFUSED: {why}"));
                }
                if let Some(why) = &e.failed {
                    line.push_str(&format!(" FAILED: {why}"));
                }
                println!("{}", redact(&line));
            }
            eprintln!(
                "warrant: {} record(s) shown, not verified (run `warrant audit verify`)",
                shown.len()
            );
        }
    }
    Ok(OK)
}

fn reanchor(a: ReanchorArgs) -> CmdResult {
    let path = resolve_log_path(a.log.as_deref());
    let log = AuditLog::new(&path);
    let old = warrant_audit::read_head(&path).ok().flatten();
    let head = if a.dry_run {
        let report = log
            .verify(&VerifyOptions {
                check_head_file: false,
                expect_head: None,
            })
            .map_err(log_failure)?;
        if !report.ok() {
            eprint!("{}", report_text(&path, &report));
            return Err(Failure::with_code(
                FAILED,
                anyhow::anyhow!(
                    "audit log `{}` does not verify; refusing to re-anchor",
                    path.display()
                ),
            ));
        }
        report.head
    } else {
        match log.reanchor() {
            Ok(h) => h,
            Err(e @ AuditError::ChainBroken { .. }) => return Err(Failure::with_code(FAILED, e)),
            Err(e) => return Err(log_failure(e)),
        }
    };
    match a.format {
        Format::Json => print_json(
            &json!({"log": path.display().to_string(), "old_head": old, "head": head,
            "written": !a.dry_run}),
        ),
        Format::Text => {
            let show = |h: &Option<warrant_audit::Head>| {
                h.as_ref().map_or_else(
                    || "(none)".to_string(),
                    |h| format!("seq {} {}", h.seq, h.hash),
                )
            };
            println!("old head: {}", show(&old));
            println!(
                "{}: {}",
                if a.dry_run { "would write" } else { "new head" },
                show(&head)
            );
        }
    }
    Ok(OK)
}

fn load_warrant(path: &std::path::Path) -> Result<Warrant, Failure> {
    Warrant::load(path).map_err(Failure::invalid)
}

fn show_warrant(a: ShowWarrantArgs) -> CmdResult {
    let w = load_warrant(&a.warrant)?;
    let hash_ok = w.compute_hash() == w.warrant_hash;
    match a.format {
        Format::Json => {
            let mut v = w.to_json_redacted();
            if let Some(map) = v.as_object_mut() {
                map.insert("hash_ok".into(), json!(hash_ok));
            }
            print_json(&v);
        }
        Format::Text => {
            let mut out = String::new();
            out.push_str(&format!(
                "warrant:      {}{}\n",
                w.warrant_hash,
                if hash_ok {
                    ""
                } else {
                    "  (DOES NOT MATCH CONTENT)"
                }
            ));
            out.push_str(&format!("actor:        {}\n", w.request.actor));
            out.push_str(&format!(
                "capability:   {}\n",
                w.request.capability.as_str()
            ));
            if !w.request.argv.is_empty() {
                out.push_str(&format!("argv:         {:?}\n", w.request.argv));
            }
            out.push_str(&format!("cwd:          {}\n", w.request.cwd));
            out.push_str(&format!("allowed by:   rule `{}`\n", w.rule));
            if let Some(who) = &w.approved_by {
                out.push_str(&format!("approved by:  {who}\n"));
            }
            out.push_str(&format!(
                "valid:        {} .. {}\n",
                w.issued_at, w.expires_at
            ));
            out.push_str(&format!("request hash: {}\n", w.request_hash));
            out.push_str(&format!("policy hash:  {}\n", w.policy_hash));
            print!("{}", redact(&out));
        }
    }
    Ok(OK)
}

fn check_warrant(a: CheckWarrantArgs) -> CmdResult {
    let w = load_warrant(&a.warrant)?;
    let policy = warrant_policy::Policy::load(&a.policy).map_err(Failure::invalid)?;
    let result = w.revalidate(&policy, SystemTime::now());
    match a.format {
        Format::Json => {
            let v = match &result {
                Ok(_) => json!({"valid": true, "warrant_hash": w.warrant_hash}),
                Err(e) => json!({"valid": false, "warrant_hash": w.warrant_hash, "error": e.kind(),
                    "reason": redact(&e.to_string())}),
            };
            print_json(&v);
        }
        Format::Text => match &result {
            Ok(_) => println!("valid: {} (expires {})", w.warrant_hash, w.expires_at),
            Err(e) => println!("REFUSED ({}): {}", e.kind(), redact(&e.to_string())),
        },
    }
    Ok(if result.is_ok() { OK } else { FAILED })
}

/// The audit part of `warrant demo`: append records, verify, tamper with one, verify again.
#[allow(
    dead_code,
    reason = "called from `warrant demo` once the lead wires it in"
)]
pub fn demo(out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir =
        std::env::temp_dir().join(format!("warrant-audit-demo-{}-{nanos}", std::process::id()));
    std::fs::create_dir(&dir)
        .with_context(|| format!("creating the demo directory `{}`", dir.display()))?;
    let result = demo_in(&dir, out);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn demo_in(dir: &std::path::Path, out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    let path = dir.join("audit.jsonl");
    let log = AuditLog::new(&path);
    writeln!(out, "== audit log: hash-chained, append-only ==")?;
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    log.append(
        warrant_audit::AuditEntry::review(
            "skill:release-readiness",
            argv(&["python3", "scripts/inspect_release.py"]),
        )
        .verdict("allow"),
    )?;
    log.append(
        warrant_audit::AuditEntry::exec(
            "skill:release-readiness",
            argv(&["python3", "scripts/inspect_release.py"]),
        )
        .outcome(warrant_audit::ExecOutcome::exited(0)),
    )?;
    log.append(
        warrant_audit::AuditEntry::exec(
            "skill:release-readiness",
            argv(&[
                "curl",
                "-H",
                "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            ]),
        )
        .refused("the current policy no longer allows this request"),
    )?;
    let report = log.verify(&VerifyOptions::default())?;
    write!(out, "{}", report_text(&path, &report))?;
    let text = std::fs::read_to_string(&path)?;
    writeln!(
        out,
        "secret in argv stored as: {}",
        if text.contains("ghp_") {
            "PLAINTEXT (bug)"
        } else {
            "redacted"
        }
    )?;
    writeln!(
        out,
        "-- an attacker edits the refused request's argv to hide what was attempted --"
    )?;
    let tampered = text.replacen("\"argv\":[\"curl\"", "\"argv\":[\"true\"", 1);
    std::fs::write(&path, tampered)?;
    let report = log.verify(&VerifyOptions::default())?;
    write!(out, "{}", report_text(&path, &report))?;
    writeln!(out, "-- and then cuts the last record off --")?;
    let kept: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(&path, format!("{}\n", kept.join("\n")))?;
    let report = log.verify(&VerifyOptions::default())?;
    write!(out, "{}", report_text(&path, &report))?;
    demo_warrant(dir, out)
}

/// The warrant part of the demo: issue for an allowed read, re-validate, then refuse after the
/// policy changes and after the file is swapped for a symlink.
fn demo_warrant(dir: &std::path::Path, out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    use warrant_policy::{ActionRequest, Policy, PolicyFormat};
    writeln!(
        out,
        "\n== warrants: issued for allow, re-validated at launch =="
    )?;
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws)?;
    std::fs::write(ws.join("notes.txt"), "release notes\n")?;
    let text = "version = 1\nworkspace = \"ws\"\ncapabilities = [\"fs.read\"]\n\n[paths]\nread = [\".\"]\n";
    let policy = Policy::from_str_with_base(text, PolicyFormat::Toml, dir, "demo-policy.toml")?;
    let request = ActionRequest::from_json(
        r#"{"actor":"skill:release-readiness","capability":"fs.read","paths":["notes.txt"],"side_effect":"read_only"}"#,
    )?;
    let decision = warrant_policy::review(&policy, &request);
    let warrant = Warrant::issue(
        &policy,
        &request,
        &decision,
        std::time::Duration::from_secs(600),
    )?;
    writeln!(
        out,
        "issued:   {} (expires {})",
        warrant.warrant_hash, warrant.expires_at
    )?;
    let show = |r: Result<warrant_policy::ActionRequest, warrant_audit::RevalidationError>| match r
    {
        Ok(_) => "valid: launch".to_string(),
        Err(e) => format!("REFUSED, exit 126 ({}): {}", e.kind(), e),
    };
    writeln!(
        out,
        "at launch:              {}",
        show(warrant.revalidate(&policy, SystemTime::now()))
    )?;
    let mut edited = warrant.clone();
    edited.request.paths = vec!["../../etc/shadow".into()];
    writeln!(
        out,
        "warrant edited:         {}",
        show(edited.revalidate(&policy, SystemTime::now()))
    )?;
    let changed = Policy::from_str_with_base(
        &text.replace("[\"fs.read\"]", "[\"fs.read\", \"fs.create\"]"),
        PolicyFormat::Toml,
        dir,
        "demo-policy.toml",
    )?;
    writeln!(
        out,
        "policy changed:         {}",
        show(warrant.revalidate(&changed, SystemTime::now()))
    )?;
    std::fs::remove_file(ws.join("notes.txt"))?;
    std::os::unix::fs::symlink("/etc/passwd", ws.join("notes.txt"))?;
    writeln!(
        out,
        "file swapped (symlink): {}",
        show(warrant.revalidate(&policy, SystemTime::now()))
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_shows_an_intact_chain_then_each_tampering_detected() {
        let mut out = Vec::new();
        demo(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        println!("{text}");
        assert!(text.contains("OK, chain intact"), "{text}");
        assert!(
            text.contains("secret in argv stored as: redacted"),
            "{text}"
        );
        assert!(text.contains("line 3: hash_mismatch"), "{text}");
        assert!(text.contains("log: truncated"), "{text}");
        assert!(!text.contains("ghp_"), "{text}");
        assert!(text.contains("at launch:              valid"), "{text}");
        assert!(
            text.contains("(tampered)") && text.contains("(policy_changed)"),
            "{text}"
        );
        assert!(text.contains("(request_changed)"), "{text}");
    }
}
