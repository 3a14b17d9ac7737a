//! The execution boundary: a process backend that builds Linux isolation itself (namespaces, a fresh
//! root, Landlock, seccomp, no capabilities, limits), an OCI backend, and the in-sandbox probe.
//!
//! Entry points: [`Profile::load`] and [`exec`]. Every control that cannot be established fails
//! closed with [`ExecError::Setup`] naming it (the CLI exits 125). [`probe::run_inside`] is what
//! `warrant probe` runs inside a sandbox.
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod cgroup;
pub mod error;
pub mod oci;
pub mod probe;
pub mod process;
pub mod profile;
pub mod result;
pub mod seccomp;
mod sys;

use std::path::Path;

pub use error::{ExecError, ProfileError};
pub use profile::Profile;
pub use result::{ExecResult, OutputSink};

/// The uid the command runs as inside the sandbox (mapped to an unprivileged host uid).
pub const SANDBOX_UID: u32 = 1000;
/// The gid the command runs as inside the sandbox.
pub const SANDBOX_GID: u32 = 1000;
/// Where the warrant binary is bind-mounted (read-only) inside every sandbox.
pub const SELF_PATH: &str = "/run/warrant/warrant";

/// Which backend runs the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// warrant's own namespaces, Landlock and seccomp.
    Process,
    /// An OCI bundle run by `crun`.
    Oci,
}

/// Runs `argv` under `profile` with `workspace` as the base of relative paths. The supervisor must
/// be single-threaded (it forks). Output is forwarded to `sinks`, capped by the profile.
pub fn exec(
    backend: Backend,
    profile: &Profile,
    argv: &[String],
    workspace: &Path,
    sinks: &mut OutputSink<'_>,
) -> Result<ExecResult, ExecError> {
    if !workspace.is_absolute() {
        return Err(ExecError::Invalid(format!(
            "workspace `{}` must be absolute",
            workspace.display()
        )));
    }
    let host_env: Vec<(String, String)> = std::env::vars().collect();
    match backend {
        Backend::Process => process::run(profile, argv, workspace, host_env, sinks),
        Backend::Oci => oci::run(profile, argv, workspace, host_env, sinks),
    }
}

/// Host facts the probe compares against from inside (namespace ids, addresses, resolvers).
pub fn host_facts() -> probe::HostFacts {
    probe::HostFacts::collect()
}
