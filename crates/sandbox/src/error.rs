//! Errors of the sandbox library.

use thiserror::Error;

/// A profile could not be read or is invalid.
#[derive(Debug, Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error(
        "cannot read profile `{file}`: {message}; pass a built-in name (readonly, workspace-write) or a readable TOML file"
    )]
    Read {
        /// The file.
        file: String,
        /// The OS error.
        message: String,
    },
    /// The TOML is malformed or has an unknown field.
    #[error("profile `{file}` is not valid TOML for a profile: {message}")]
    Parse {
        /// The file.
        file: String,
        /// The parser's message (names the field).
        message: String,
    },
    /// A field has an invalid value.
    #[error("profile `{file}`: field `{field}`: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// The field.
        field: String,
        /// What is wrong and what to do.
        message: String,
    },
}

/// Running a command in the sandbox failed before the command itself ran.
#[derive(Debug, Error)]
pub enum ExecError {
    /// Bad input (argv, cwd, profile): nothing was started.
    #[error("{0}")]
    Invalid(String),
    /// A control could not be established: the sandbox failed closed (exit 125).
    #[error("sandbox setup failed, control `{control}`: {message}")]
    Setup {
        /// The control that failed (e.g. `landlock`, `seccomp`, `uid-map`).
        control: String,
        /// What happened.
        message: String,
    },
}

impl ExecError {
    /// A setup failure naming `control`.
    pub fn setup(control: &str, message: impl std::fmt::Display) -> Self {
        ExecError::Setup {
            control: control.to_string(),
            message: message.to_string(),
        }
    }
}
