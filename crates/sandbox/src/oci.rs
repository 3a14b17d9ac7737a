//! The OCI backend: the same profile rendered as an OCI runtime bundle and run by `crun`.
//! (Filled in below the process backend; see `docs/sandbox.md`.)

use std::path::Path;

use crate::error::ExecError;
use crate::profile::Profile;
use crate::result::{ExecResult, OutputSink};

/// Runs `argv` under `profile` through crun.
pub fn run(
    _profile: &Profile,
    _argv: &[String],
    _workspace: &Path,
    _host_env: Vec<(String, String)>,
    _sinks: &mut OutputSink<'_>,
) -> Result<ExecResult, ExecError> {
    Err(ExecError::setup(
        "oci",
        "the OCI backend is not available in this build",
    ))
}
