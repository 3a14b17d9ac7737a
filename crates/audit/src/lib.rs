//! Warrants (immutable, re-validated action records) and the hash-chained, append-only audit log.
#![forbid(unsafe_code)]
