//! Subcommands of this group (owned by its issue; see docs/ARCHITECTURE.md).

use clap::Subcommand;

use crate::exit::CmdResult;

/// Subcommands of this group.
#[derive(Debug, Subcommand)]
pub enum Command {}

/// Runs one subcommand of this group.
pub fn run(command: Command) -> CmdResult {
    match command {}
}
