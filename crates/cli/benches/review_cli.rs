//! End-to-end cost of the CLI: a one-shot `warrant review` process, and `review --batch`
//! throughput on 1000 mixed requests. Run: `cargo bench -p warrant-cli --bench review_cli`.
#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn run(args: &[&str], input: &[u8]) -> i32 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warrant"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    child.wait().expect("wait").code().unwrap_or(-1)
}

fn cli(c: &mut Criterion) {
    let policy = examples().join("policy.toml");
    let policy = policy.to_str().expect("utf8");
    let requests: Vec<String> = std::fs::read_dir(examples().join("requests"))
        .expect("requests")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .map(|t| {
            serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&t).expect("json"))
                .expect("line")
        })
        .collect();
    let one = requests.first().cloned().unwrap_or_default();
    let batch: String = requests
        .iter()
        .cycle()
        .take(1000)
        .map(|l| format!("{l}\n"))
        .collect();

    let mut group = c.benchmark_group("cli");
    group.measurement_time(Duration::from_secs(8));
    group.sample_size(50);
    group.bench_function("one_shot_review", |b| {
        b.iter(|| run(&["review", "--policy", policy], one.as_bytes()))
    });
    group.bench_function("spawn_true_baseline", |b| {
        b.iter(|| Command::new("/bin/true").status().expect("true"))
    });
    group.throughput(Throughput::Elements(1000));
    group.bench_function("batch_1000", |b| {
        b.iter(|| run(&["review", "--policy", policy, "--batch"], batch.as_bytes()))
    });
    group.finish();
}

criterion_group!(benches, cli);
criterion_main!(benches);
