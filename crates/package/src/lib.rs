//! Skill package trust: read a skill folder or archive without extracting it, check it, review it
//! statically, install it atomically with a hashed manifest, and verify installed trees.
#![forbid(unsafe_code)]
