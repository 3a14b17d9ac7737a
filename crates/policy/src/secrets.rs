//! Likely-secret detection and redaction.
//!
//! The detector looks for key/value forms with secret-like names (`api_key=`, `password:`,
//! `client_secret=`), bearer tokens, private-key blocks, well-known provider token formats, and
//! high-entropy values next to secret-like names. It is a signal, not a proof: no pattern can
//! establish that arbitrary text is not sensitive. [`redact`] replaces every match with
//! `[REDACTED:<kind>]` and is applied to everything warrant prints, logs or stores.

use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

/// One likely secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecretMatch {
    /// The kind of secret (`private-key`, `aws-access-key`, `key-value`, `bearer-token`, ...).
    pub kind: &'static str,
    /// Byte offset where the secret value starts.
    pub start: usize,
    /// Byte offset just past the secret value.
    pub end: usize,
}

struct Pattern {
    kind: &'static str,
    source: &'static str,
    /// Literals (ASCII case-insensitive) at least one of which occurs in any match: a cheap gate
    /// before the pattern is compiled or run.
    needles: &'static [&'static str],
    regex: OnceLock<Regex>,
    /// Capture group holding the secret value (0 = whole match).
    group: usize,
    /// Minimum Shannon entropy (bits per char) the value must have, 0 for none.
    min_entropy: f64,
}

fn patterns() -> &'static [Pattern] {
    static PATTERNS: OnceLock<Vec<Pattern>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let p = |kind, re: &'static str, group, min_entropy| Pattern {
            kind,
            source: re,
            needles: needles_for(kind),
            regex: OnceLock::new(),
            group,
            min_entropy,
        };
        vec![
            p("private-key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?s:.*?)-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?s:.*))", 0, 0.0),
            p("aws-access-key", r"(?-u:\b)(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?-u:\b)", 0, 0.0),
            p("github-token", r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?-u:\b)", 0, 0.0),
            p("anthropic-key", r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{20,}", 0, 0.0),
            p("openai-key", r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}", 0, 0.0),
            p("slack-token", r"(?-u:\b)xox[abposr]-[A-Za-z0-9\-]{10,}", 0, 0.0),
            p("stripe-key", r"(?-u:\b)(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", 0, 0.0),
            p("google-api-key", r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}(?-u:\b)", 0, 0.0),
            p("gitlab-token", r"(?-u:\b)glpat-[A-Za-z0-9_\-]{20,}", 0, 0.0),
            p("npm-token", r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)", 0, 0.0),
            p("jwt", r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", 0, 0.0),
            p("basic-auth", r"(?-u:\b)(?i-u:basic)[ \t]+([A-Za-z0-9+/]{8,}={0,2})", 1, 2.5),
            p("bearer-token", r"(?-u:\b)(?i-u:bearer|token)[ \t\r\n\f\v]+([A-Za-z0-9_\-\.=:/+]{16,})", 1, 3.0),
            p("url-credentials", r"[a-zA-Z][a-zA-Z0-9+.\-]*://[^/ \t\r\n\f\v:@]+:([^@ \t\r\n\f\v/]+)@", 1, 0.0),
            // key/value forms: api_key=..., "password": "...", client_secret: ..., --token=...
            p(
                "key-value",
                r#"(?i-u:api[_\-]?key|apikey|secret[_\-]?key|client[_\-]?secret|access[_\-]?key(?:[_\-]?id)?|auth[_\-]?token|access[_\-]?token|refresh[_\-]?token|private[_\-]?key|passwd|password|passphrase|pwd|secret|token|credentials?)["']?[ \t\r\n\f\v]*(?:=|:|=>)[ \t\r\n\f\v]*["']?([^ \t\r\n\f\v"',;&]{6,})"#,
                1,
                0.0,
            ),
            // high-entropy values next to secret-like names in environment form (NAME_KEY=value).
            p(
                "high-entropy",
                r"(?-u:\b)(?i-u:[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASS|AUTH|CRED)[A-Z0-9_]*)[ \t\r\n\f\v]*=[ \t\r\n\f\v]*([A-Za-z0-9+/_\-\.=]{16,})",
                1,
                3.5,
            ),
        ]
    })
}

fn unreachable_regex() -> Regex {
    // `Regex::new("a^")` always compiles; this exists only so that no code path panics.
    match Regex::new("a^") {
        Ok(r) => r,
        Err(_) => std::process::abort(),
    }
}

/// Shannon entropy of a string, in bits per character.
pub fn shannon_entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut n = 0usize;
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

fn looks_like_placeholder(value: &str) -> bool {
    let v = value.trim_matches(|c: char| c == '<' || c == '>' || c == '{' || c == '}' || c == '$');
    let lower = v.to_ascii_lowercase();
    lower.is_empty()
        || value.starts_with('$')
        || value.starts_with("${")
        || value.starts_with('<')
        || value.starts_with("[REDACTED")
        || matches!(
            lower.as_str(),
            "none" | "null" | "true" | "false" | "required" | "optional" | "example" | "changeme"
        )
        || lower.chars().all(|c| c == '*' || c == 'x' || c == '.')
}

/// The literals that gate each pattern (see [`Pattern::needles`]).
fn needles_for(kind: &str) -> &'static [&'static str] {
    match kind {
        "private-key" => &["PRIVATE KEY"],
        "aws-access-key" => &[
            "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA",
        ],
        "github-token" => &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        "anthropic-key" => &["sk-ant-"],
        "openai-key" => &["sk-"],
        "slack-token" => &["xox"],
        "stripe-key" => &["_live_", "_test_"],
        "google-api-key" => &["AIza"],
        "gitlab-token" => &["glpat-"],
        "npm-token" => &["npm_"],
        "jwt" => &["eyJ"],
        "bearer-token" => &["bearer", "token"],
        "basic-auth" => &["basic"],
        "url-credentials" => &["://"],
        "key-value" => &[
            "key",
            "secret",
            "token",
            "passw",
            "passp",
            "pwd",
            "credential",
        ],
        _ => &["key", "token", "secret", "pass", "auth", "cred"],
    }
}

/// One Aho-Corasick automaton over every pattern's needles: one pass over the text tells which
/// patterns can match at all, so clean text (the common case) never compiles or runs a regex.
fn gate() -> Option<&'static (aho_corasick::AhoCorasick, Vec<usize>)> {
    static GATE: OnceLock<Option<(aho_corasick::AhoCorasick, Vec<usize>)>> = OnceLock::new();
    GATE.get_or_init(|| {
        let mut needles = Vec::new();
        let mut owner = Vec::new();
        for (i, p) in patterns().iter().enumerate() {
            for n in p.needles {
                needles.push(*n);
                owner.push(i);
            }
        }
        let ac = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(&needles)
            .ok()?;
        Some((ac, owner))
    })
    .as_ref()
}

/// Finds likely secrets in `text`, and in its percent-decoded form (so `token%3Dghp_...` in a URL
/// is found too). Matches are sorted by start offset and do not overlap.
pub fn find_secrets(text: &str) -> Vec<SecretMatch> {
    let direct = find_secrets_raw(text);
    if direct.is_empty() && text.contains('%') {
        let decoded = percent_decode(text);
        if decoded != text && !find_secrets_raw(&decoded).is_empty() {
            // Offsets in the decoded text do not map back: flag the whole text.
            return vec![SecretMatch {
                kind: "percent-encoded",
                start: 0,
                end: text.len(),
            }];
        }
    }
    direct
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn find_secrets_raw(text: &str) -> Vec<SecretMatch> {
    let mut found: Vec<SecretMatch> = Vec::new();
    let candidates: Vec<usize> = match gate() {
        Some((ac, owner)) => {
            let mut hit = vec![false; patterns().len()];
            let mut remaining = hit.len();
            for m in ac.find_overlapping_iter(text) {
                if let Some(slot) = owner
                    .get(m.pattern().as_usize())
                    .and_then(|i| hit.get_mut(*i))
                    && !*slot
                {
                    *slot = true;
                    remaining -= 1;
                    // Every pattern is already a candidate: the rest of the text changes nothing.
                    if remaining == 0 {
                        break;
                    }
                }
            }
            hit.iter()
                .enumerate()
                .filter(|(_, h)| **h)
                .map(|(i, _)| i)
                .collect()
        }
        None => (0..patterns().len()).collect(),
    };
    for pattern in candidates.into_iter().filter_map(|i| patterns().get(i)) {
        // Compiled on first use only: clean text never pays for a regex. The patterns are
        // constants covered by tests; should one not compile, it matches nothing rather than panic.
        let regex = pattern
            .regex
            .get_or_init(|| Regex::new(pattern.source).unwrap_or_else(|_| unreachable_regex()));
        for caps in regex.captures_iter(text) {
            let Some(m) = caps.get(pattern.group) else {
                continue;
            };
            let value = m.as_str();
            if (pattern.kind == "key-value"
                || pattern.kind == "high-entropy"
                || pattern.kind == "bearer-token")
                && looks_like_placeholder(value)
            {
                continue;
            }
            if pattern.min_entropy > 0.0 && shannon_entropy(value) < pattern.min_entropy {
                continue;
            }
            found.push(SecretMatch {
                kind: pattern.kind,
                start: m.start(),
                end: m.end(),
            });
        }
    }
    found.sort_by_key(|m| (m.start, std::cmp::Reverse(m.end)));
    let mut merged: Vec<SecretMatch> = Vec::new();
    for m in found {
        match merged.last_mut() {
            Some(last) if m.start < last.end => last.end = last.end.max(m.end),
            _ => merged.push(m),
        }
    }
    merged
}

/// True when `name` reads like a credential (`DB_PASS`, `API_TOKEN`, `GH_AUTH`) and `value` is a
/// real value rather than a placeholder: in an environment, the name alone is evidence enough.
pub fn is_secret_name_with_value(name: &str, value: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let secret_name = [
        "PASS", "PWD", "SECRET", "TOKEN", "KEY", "AUTH", "CRED", "PRIVATE", "COOKIE", "SESSION",
    ]
    .iter()
    .any(|w| upper.contains(w));
    secret_name && !value.trim().is_empty() && !looks_like_placeholder(value.trim())
}

/// True when `text` holds at least one likely secret.
pub fn contains_secret(text: &str) -> bool {
    !find_secrets(text).is_empty()
}

/// Replaces every likely secret in `text` with `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> String {
    let matches = find_secrets(text);
    if matches.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for m in matches {
        out.push_str(&text[pos..m.start]);
        out.push_str("[REDACTED:");
        out.push_str(m.kind);
        out.push(']');
        pos = m.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// Redacts an argument vector: each element, and the value that follows a secret-named option
/// (`--password VALUE`, `--token VALUE`), which no pattern can recognise on its own.
pub fn redact_argv(argv: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    for (i, arg) in argv.iter().enumerate() {
        let after_secret_option = i
            .checked_sub(1)
            .and_then(|p| argv.get(p))
            .is_some_and(|prev| {
                prev.starts_with('-')
                    && !prev.contains('=')
                    && contains_secret(&format!("{}={arg}", prev.trim_start_matches('-')))
            });
        out.push(if after_secret_option {
            "[REDACTED:key-value]".to_owned()
        } else {
            redact(arg)
        });
    }
    out
}

/// Redacts every string inside a JSON value, in place (keys are kept).
pub fn redact_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(s) if contains_secret(s) => {
            *s = redact(s);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_json),
        serde_json::Value::Object(map) => map.values_mut().for_each(redact_json),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_common_forms() {
        for text in [
            "api_key=abcd1234efgh",
            "password: hunter2hunter2",
            "client_secret=s3cr3tvalue",
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdefXYZ012",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
            "--token=Zx9fQ2mP8rT4vW6y",
            "DB_PASSWORD=Tr0ub4dor&3xyzQ",
            "https://user:pa55word@example.test/",
        ] {
            assert!(contains_secret(text), "missed: {text}");
            assert!(!redact(text).contains("hunter2hunter2"));
        }
    }

    #[test]
    fn ignores_ordinary_text() {
        for text in [
            "collect release evidence",
            "python3 -m unittest",
            "password: <your-password>",
            "api_key=${API_KEY}",
            "the token is required",
            "git status",
        ] {
            assert!(!contains_secret(text), "false positive: {text}");
        }
    }

    #[test]
    fn redaction_keeps_context() {
        assert_eq!(
            redact("x api_key=abcd1234efgh y"),
            "x api_key=[REDACTED:key-value] y"
        );
    }
}
