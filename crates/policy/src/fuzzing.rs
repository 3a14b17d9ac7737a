//! Entry points shared by the cargo-fuzz targets (`fuzz/`) and the corpus replay test, so that
//! both exercise exactly the same code. Not part of the stable API.

use std::path::Path;
use std::sync::OnceLock;

use crate::{ActionRequest, Policy, PolicyFormat, review};

fn fixture_policy() -> Option<&'static Policy> {
    static POLICY: OnceLock<Option<Policy>> = OnceLock::new();
    POLICY
        .get_or_init(|| {
            let text = "version = 1\nworkspace = \".\"\ncapabilities = [\"fs.read\", \"fs.create\", \"process.run\", \"net.fetch\"]\napproval = [\"net.fetch\"]\n[paths]\nread = [\".\"]\n[commands]\nallow = [[\"git\", \"status\"]]\n[network]\nallow = [\"https://docs.example.test\"]\n";
            Policy::from_str_with_base(text, PolicyFormat::Toml, &std::env::temp_dir(), "<fuzz>").ok()
        })
        .as_ref()
}

/// Parses bytes as a request and, if valid, reviews it against a fixed policy.
pub fn request(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(req) = ActionRequest::from_json(text)
        && let Some(policy) = fixture_policy()
    {
        let decision = review(policy, &req);
        let _ = decision.to_json();
        let _ = decision.to_text();
    }
}

/// Parses bytes as a TOML and as a JSON policy (relative to the temp dir).
pub fn policy(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let base = Path::new("/nonexistent-warrant-fuzz-base");
    let _ = Policy::from_str_with_base(text, PolicyFormat::Toml, base, "<fuzz>");
    let _ = Policy::from_str_with_base(text, PolicyFormat::Json, base, "<fuzz>");
}
