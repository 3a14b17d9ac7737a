//! Replays the committed fuzz corpus (`fuzz/corpus/{request,policy}`) through the same entry
//! points the fuzz targets use: nothing in it may panic. `scripts/fuzz` grows the corpus.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("entry").path();
        let data = std::fs::read(&path).expect("read");
        run(&data);
        count += 1;
    }
    count
}

#[test]
fn request_corpus_replays_without_panic() {
    let n = replay("request", warrant_policy::fuzzing::request);
    assert!(n >= 100, "the request corpus has only {n} inputs");
}

#[test]
fn policy_corpus_replays_without_panic() {
    let n = replay("policy", warrant_policy::fuzzing::policy);
    assert!(n >= 20, "the policy corpus has only {n} inputs");
}
