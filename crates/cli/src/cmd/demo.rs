//! `warrant demo`: runs the bundled examples end to end, offline.

use clap::Args as ClapArgs;

use crate::exit::{CmdResult, OK};

/// Arguments of `warrant demo`.
#[derive(Debug, ClapArgs)]
pub struct Args {}

/// Runs the demo.
pub fn run(_args: Args) -> CmdResult {
    Ok(OK)
}
