//! `warrant`: a trust boundary around AI-agent skills.
//!
//! This binary is glue only: every decision, check and boundary lives in a library crate. Each
//! group of subcommands is one module in `cmd/`; `exit` maps outcomes to the documented exit codes.
#![forbid(unsafe_code)]

mod cmd;
mod exit;

use std::process::ExitCode;

use clap::Parser;

/// A trust boundary around AI-agent skills: inspect before install, review before run, isolate
/// while running, evaluate with evidence that cannot be faked.
#[derive(Debug, Parser)]
#[command(name = "warrant", version, about, long_about = None, after_help = exit::EXIT_STATUS_HELP)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cmd::run(cli.command) {
        Ok(code) => code,
        Err(failure) => failure.report(),
    };
    ExitCode::from(code)
}
