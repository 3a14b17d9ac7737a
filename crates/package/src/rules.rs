//! Every rule id warrant's package checks can report, with its default severity and meaning.
//!
//! Ids are stable: fields may be added, meanings do not change silently. Structural rules describe
//! the package's shape (paths, entry types, limits, entry point, frontmatter); no override lifts
//! them. Review rules describe what the content does; `install --allow RULE` can accept one.

use crate::model::Severity;

/// A rule: id, default severity, whether it is structural, and a one-line description.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The stable id.
    pub id: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// Structural (never overridable).
    pub structural: bool,
    /// What it means.
    pub description: &'static str,
}

const fn s(id: &'static str, description: &'static str) -> Rule {
    Rule {
        id,
        severity: Severity::Critical,
        structural: true,
        description,
    }
}

const fn r(id: &'static str, severity: Severity, description: &'static str) -> Rule {
    Rule {
        id,
        severity,
        structural: false,
        description,
    }
}

/// All rules, structural first.
pub const RULES: &[Rule] = &[
    s(
        "path-absolute",
        "an entry path is absolute (starts with `/`)",
    ),
    s("path-traversal", "an entry path has a `..` component"),
    s(
        "path-dot-component",
        "an entry path has an empty or `.` component",
    ),
    s(
        "path-backslash",
        "an entry path contains a backslash (a Windows separator)",
    ),
    s(
        "path-drive-letter",
        "an entry path starts with a drive letter or contains `:`",
    ),
    s(
        "path-reserved-name",
        "an entry path uses a Windows reserved name (CON, NUL, COM1, ...) or ends a component with a dot or space",
    ),
    s(
        "path-control-char",
        "an entry path contains NUL or another control character",
    ),
    s("path-invalid-utf8", "an entry path is not valid UTF-8"),
    s(
        "path-too-long",
        "an entry path is longer or deeper than the limit",
    ),
    s(
        "entry-symlink",
        "a symlink (refused unless --allow-symlinks)",
    ),
    s(
        "symlink-escape",
        "a symlink that resolves outside the package root, to a missing entry, or to a non-file",
    ),
    s(
        "entry-hardlink",
        "a hard link (tar link entry, or a source file with more than one link)",
    ),
    s("entry-device", "a character or block device entry"),
    s("entry-fifo", "a FIFO (named pipe) entry"),
    s("entry-socket", "a socket entry"),
    s(
        "entry-unsupported",
        "an entry type warrant does not install (sparse, contiguous, unknown)",
    ),
    s("entry-duplicate", "two entries with the same path"),
    s(
        "name-collision",
        "two paths that collide after case folding or Unicode normalization",
    ),
    s(
        "path-conflict",
        "a path used both as a file and as a directory",
    ),
    s(
        "tar-pax-size-mismatch",
        "a PAX size record disagrees with the tar header size",
    ),
    s(
        "tar-malformed",
        "a tar header that warrant's validation does not accept",
    ),
    s(
        "zip-header-mismatch",
        "a zip local header disagrees with its central directory record",
    ),
    s(
        "zip-encrypted",
        "an encrypted zip entry (cannot be reviewed)",
    ),
    s(
        "zip-unsupported-method",
        "a zip compression method other than stored or deflate",
    ),
    s(
        "archive-prepended-data",
        "data before the start of the archive",
    ),
    s("archive-trailing-data", "data after the end of the archive"),
    s("limit-file-count", "more entries than --max-files"),
    s("limit-file-size", "a file larger than --max-file-size"),
    s("limit-total-size", "more content than --max-total-size"),
    s(
        "limit-compression-ratio",
        "a decompression ratio above --max-ratio (a decompression bomb)",
    ),
    s("skill-md-missing", "no SKILL.md anywhere in the package"),
    s(
        "skill-md-misplaced",
        "SKILL.md exists, but not exactly at the package root under that exact name",
    ),
    s("skill-md-symlink", "SKILL.md is a symlink"),
    s(
        "frontmatter-missing",
        "SKILL.md does not start with a `---` YAML frontmatter block",
    ),
    s(
        "frontmatter-invalid",
        "the frontmatter is not valid YAML, not a mapping, or a field has the wrong type",
    ),
    s(
        "frontmatter-too-large",
        "the frontmatter is larger than 16 KiB or nested too deep",
    ),
    s(
        "frontmatter-anchor",
        "the frontmatter uses YAML anchors or aliases",
    ),
    s("frontmatter-tag", "the frontmatter uses YAML tags"),
    s("frontmatter-duplicate-key", "the frontmatter repeats a key"),
    s(
        "name-invalid",
        "the `name` is missing, longer than 64, or not lowercase letters, digits and single hyphens",
    ),
    s(
        "name-mismatch",
        "the `name` does not match the package folder",
    ),
    s(
        "description-missing",
        "the `description` is missing or empty",
    ),
    s(
        "description-too-long",
        "the `description` is longer than 1024 characters",
    ),
    r(
        "frontmatter-unknown-key",
        Severity::Low,
        "a frontmatter key outside the Agent Skills spec and Claude Code's known keys",
    ),
    r(
        "frontmatter-allowed-tools",
        Severity::Medium,
        "`allowed-tools` pre-approves tools: saves prompts, bounds nothing",
    ),
    r(
        "frontmatter-hooks",
        Severity::High,
        "frontmatter hooks run commands on agent events",
    ),
    r(
        "frontmatter-model",
        Severity::Low,
        "the skill pins or changes the model",
    ),
    r(
        "invocation-policy",
        Severity::Info,
        "who may invoke the skill (`disable-model-invocation`, `user-invocable`)",
    ),
    r(
        "load-time-exec",
        Severity::Critical,
        "a !`cmd` line that runs a command when the skill is loaded",
    ),
    r(
        "pipe-to-shell",
        Severity::Critical,
        "network or decoded content piped into a shell or interpreter (`curl ... | sh`)",
    ),
    r(
        "exec-script",
        Severity::Info,
        "an executable script (shebang or exec bit) and its interpreter",
    ),
    r(
        "exec-bit-dropped",
        Severity::Low,
        "an exec bit on a file that is not a reviewed script; installed without it",
    ),
    r(
        "binary-file",
        Severity::Medium,
        "a binary file (cannot be reviewed as text)",
    ),
    r(
        "dependency-declared",
        Severity::Medium,
        "a declared dependency file (requirements.txt, pyproject.toml, package.json)",
    ),
    r(
        "dependency-lifecycle-script",
        Severity::High,
        "a package.json lifecycle script (preinstall, install, postinstall, prepare) runs code at install",
    ),
    r(
        "command-referenced",
        Severity::Info,
        "a command referenced in a script or a SKILL.md code block",
    ),
    r(
        "network-origin",
        Severity::Medium,
        "an HTTPS origin the package contacts",
    ),
    r(
        "network-nondefault-port",
        Severity::High,
        "an HTTPS origin on a non-default port",
    ),
    r(
        "network-internal",
        Severity::High,
        "a URL to a loopback, private or link-local address",
    ),
    r(
        "network-insecure",
        Severity::Medium,
        "a plain http:// (or otherwise non-https) URL",
    ),
    r(
        "credential-file",
        Severity::High,
        "reads a credential store (~/.ssh, ~/.aws, ~/.netrc, keychains, gh/docker config)",
    ),
    r(
        "credential-env",
        Severity::Medium,
        "reads an environment variable with a secret-like name",
    ),
    r(
        "embedded-secret",
        Severity::High,
        "a likely secret embedded in the package",
    ),
    r("read-root", Severity::Info, "a path the scripts read"),
    r("write-root", Severity::Info, "a path the scripts write to"),
    r(
        "write-protected",
        Severity::High,
        "writes to a shell rc file, agent configuration, git hooks or system path",
    ),
    r(
        "hidden-unicode",
        Severity::High,
        "invisible or bidirectional-control Unicode characters",
    ),
    r(
        "html-comment-instructions",
        Severity::High,
        "instructions hidden in an HTML comment",
    ),
    r(
        "prompt-injection",
        Severity::High,
        "text aimed at the agent or grader (\"ignore previous instructions\", \"you are now\")",
    ),
    r(
        "obfuscated-blob",
        Severity::Medium,
        "a long base64 or hex blob",
    ),
];

/// Looks a rule up by id.
pub fn get(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// True for structural rules (unknown ids count as structural: fail closed).
pub fn is_structural(id: &str) -> bool {
    get(id).is_none_or(|r| r.structural)
}
