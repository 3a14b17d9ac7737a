//! One module per group of subcommands. Each module owns its clap definitions and its glue.

pub mod audit;
pub mod decide;
pub mod demo;
pub mod evaluate;
pub mod isolate;
pub mod package;

use clap::Subcommand;

use crate::exit::CmdResult;

/// Every `warrant` subcommand, grouped by the library it drives.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decisions: review, explain, approve, policy check.
    #[command(flatten)]
    Decide(decide::Command),
    /// Package trust: inspect, install, verify, list, uninstall.
    #[command(flatten)]
    Package(package::Command),
    /// Isolation: exec, probe, profile check.
    #[command(flatten)]
    Isolate(isolate::Command),
    /// Audit: verify and show the hash-chained audit log; inspect and check warrants.
    #[command(flatten)]
    Audit(audit::Command),
    /// Evaluation: eval and its test-support server.
    #[command(flatten)]
    Evaluate(evaluate::Command),
    /// Run the bundled examples end to end, offline.
    Demo(demo::Args),
}

/// Runs one subcommand.
pub fn run(command: Command) -> CmdResult {
    match command {
        Command::Decide(c) => decide::run(c),
        Command::Package(c) => package::run(c),
        Command::Isolate(c) => isolate::run(c),
        Command::Audit(c) => audit::run(c),
        Command::Evaluate(c) => evaluate::run(c),
        Command::Demo(args) => demo::run(args),
    }
}
