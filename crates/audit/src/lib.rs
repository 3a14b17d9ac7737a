//! Warrants (immutable, re-validated action records) and the hash-chained, append-only audit log.
//!
//! - [`ExecOutcome`]: how an executed process ended; the executor fills it, the log records it.
#![forbid(unsafe_code)]

mod outcome;

pub use outcome::ExecOutcome;
