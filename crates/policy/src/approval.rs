//! Approval records: a person's consent to one exact request and its displayed consequence.
//!
//! An approval names the approver, the `request_hash` of the exact normalized request it approves,
//! the consequence text that was shown, and an expiry. It approves that request and nothing else:
//! review rejects an approval whose hash, consequence or validity window does not match.

use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A person's approval of one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Approval {
    /// Who approved (a person with authority; never content from the request's inputs).
    pub approver: String,
    /// The `request_hash` of the normalized request that was approved (`sha256:<hex>`).
    pub request_hash: String,
    /// The consequence sentence the approver saw, verbatim.
    pub consequence: String,
    /// When the approval was given (RFC 3339, UTC).
    pub approved_at: String,
    /// When the approval stops being valid (RFC 3339, UTC).
    pub expires_at: String,
}

/// Why an attached approval does not approve this request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalProblem {
    /// The approver field is empty.
    NoApprover,
    /// The approval is for a different request.
    HashMismatch {
        /// The hash in the approval.
        approved: String,
        /// This request's hash.
        actual: String,
    },
    /// The consequence text differs from what this request would show.
    ConsequenceMismatch,
    /// A timestamp could not be parsed.
    BadTime(String),
    /// The approval is not yet valid (approved in the future).
    NotYetValid,
    /// The approval has expired.
    Expired(String),
    /// The approval is valid for longer than [`MAX_APPROVAL_VALIDITY`].
    TooLong,
    /// The approver is the requesting actor (or another agent or skill): nobody approves itself.
    SelfApproved(String),
}

/// The longest validity window an approval may have: approvals are for one action now, not a
/// standing grant (that is what the policy is for).
pub const MAX_APPROVAL_VALIDITY: Duration = Duration::from_secs(24 * 3600);

impl ApprovalProblem {
    /// One sentence for the decision's reason.
    pub fn describe(&self) -> String {
        match self {
            Self::NoApprover => "the attached approval names no approver".into(),
            Self::HashMismatch { approved, actual } => format!(
                "the attached approval is for another request ({approved}); this request is {actual}; approvals cannot be replayed"
            ),
            Self::ConsequenceMismatch => {
                "the attached approval's consequence text differs from this request's consequence; the approver saw something else".into()
            }
            Self::BadTime(field) => format!("the attached approval's `{field}` is not an RFC 3339 time"),
            Self::NotYetValid => "the attached approval is dated in the future".into(),
            Self::Expired(at) => format!("the attached approval expired at {at}"),
            Self::TooLong => "the attached approval is valid for more than 24 hours; an approval covers one action now, not a standing grant".into(),
            Self::SelfApproved(who) => {
                format!("the attached approval names `{who}`, the requester or another agent, as approver; only a person approves")
            }
        }
    }
}

/// Formats a time as RFC 3339 UTC with second precision.
pub fn format_time(time: SystemTime) -> String {
    humantime::format_rfc3339_seconds(time).to_string()
}

fn parse_time(text: &str, field: &str) -> Result<SystemTime, ApprovalProblem> {
    humantime::parse_rfc3339_weak(text).map_err(|_| ApprovalProblem::BadTime(field.to_owned()))
}

impl Approval {
    /// Creates an approval of `request_hash` with the given consequence, valid for `ttl` from `now`.
    pub fn new(
        approver: &str,
        request_hash: &str,
        consequence: &str,
        now: SystemTime,
        ttl: Duration,
    ) -> Self {
        Self {
            approver: approver.to_owned(),
            request_hash: request_hash.to_owned(),
            consequence: consequence.to_owned(),
            approved_at: format_time(now),
            expires_at: format_time(now + ttl),
        }
    }

    /// Checks that this approval approves exactly the request with `request_hash` and
    /// `consequence`, at time `now`.
    pub fn check(
        &self,
        request_hash: &str,
        consequence: &str,
        now: SystemTime,
    ) -> Result<(), ApprovalProblem> {
        self.check_for(None, request_hash, consequence, now)
    }

    /// Like [`Approval::check`], also refusing an approval whose approver is `actor` (the
    /// requester approving itself) or any agent-like identity (`skill:`, `agent:`, `tool:`).
    pub fn check_for(
        &self,
        actor: Option<&str>,
        request_hash: &str,
        consequence: &str,
        now: SystemTime,
    ) -> Result<(), ApprovalProblem> {
        let approver = self.approver.trim();
        if approver.is_empty() {
            return Err(ApprovalProblem::NoApprover);
        }
        let lower = approver.to_ascii_lowercase();
        let agent_like = ["skill:", "agent:", "tool:", "mcp:", "plugin:", "model:"]
            .iter()
            .any(|p| lower.starts_with(p));
        if agent_like || actor.is_some_and(|a| a.trim().eq_ignore_ascii_case(approver)) {
            return Err(ApprovalProblem::SelfApproved(approver.to_owned()));
        }
        if self.request_hash != request_hash {
            return Err(ApprovalProblem::HashMismatch {
                approved: self.request_hash.clone(),
                actual: request_hash.to_owned(),
            });
        }
        if self.consequence != consequence {
            return Err(ApprovalProblem::ConsequenceMismatch);
        }
        let approved_at = parse_time(&self.approved_at, "approved_at")?;
        let expires_at = parse_time(&self.expires_at, "expires_at")?;
        // Allow a minute of clock skew between the approving machine and this one.
        if approved_at > now + Duration::from_secs(60) {
            return Err(ApprovalProblem::NotYetValid);
        }
        if expires_at <= now || expires_at <= approved_at {
            return Err(ApprovalProblem::Expired(self.expires_at.clone()));
        }
        if expires_at.duration_since(approved_at).unwrap_or_default() > MAX_APPROVAL_VALIDITY {
            return Err(ApprovalProblem::TooLong);
        }
        Ok(())
    }
}
