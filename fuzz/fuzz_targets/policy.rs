//! Any bytes: policy parsing (TOML and JSON) never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    warrant_policy::fuzzing::policy(data);
});
