//! Any bytes: request parsing never panics, and a parsed request reviews without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    warrant_policy::fuzzing::request(data);
});
