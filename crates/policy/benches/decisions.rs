//! Benchmarks of the decision engine (filled in below).
fn main() {}
