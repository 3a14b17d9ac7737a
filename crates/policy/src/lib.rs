//! The warrant decision engine.
//!
//! It reviews a structured [`ActionRequest`] against an explicit [`Policy`] and returns a
//! [`ReviewDecision`]: `allow`, `ask` or `deny`, with the deciding rule, every finding, the
//! normalized request and, for `ask`, the concrete consequence a person must approve. It never runs
//! the action; its only I/O is path resolution (realpath, lstat) against the workspace.
#![forbid(unsafe_code)]

pub mod origin;
pub mod secrets;
