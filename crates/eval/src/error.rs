//! Errors of the evaluation harness, split by who must act: invalid input (exit 2) or a harness
//! that could not evaluate (exit 5).

use std::path::PathBuf;

/// What went wrong before or while evaluating.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A scenario file is invalid (syntax, unknown field, bad value).
    #[error("invalid scenario file `{path}`: {message}")]
    Scenario {
        /// The scenario file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// The candidate skill is invalid (missing, a symlink, not a regular file, bad name).
    #[error("invalid candidate `{path}`: {message}")]
    Candidate {
        /// The candidate path as given.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// A command-line option or configuration value is invalid.
    #[error("invalid option `{option}`: {message}")]
    Option {
        /// The option name.
        option: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// `NO_AUTH`: the agent needs a model key and none is available, and `--host-auth` was not given.
    #[error(
        "NO_AUTH: no ANTHROPIC_API_KEY in the environment and no --host-auth; set a (scoped, disposable) key or opt in to host credentials with --host-auth"
    )]
    NoAuth,
    /// The harness itself failed (workspace, shims, evidence).
    #[error("harness error: {context}: {source}")]
    Io {
        /// What the harness was doing.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The harness could not establish a control it promises (for example ending the agent's tree).
    #[error("harness error: {0}")]
    Harness(String),
}

impl EvalError {
    /// True when the error is the caller's input (exit 2); false when the harness could not
    /// evaluate (exit 5).
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            Self::Scenario { .. } | Self::Candidate { .. } | Self::Option { .. }
        )
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }

    pub(crate) fn scenario(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::Scenario {
            path: path.into(),
            message: message.into(),
        }
    }

    pub(crate) fn candidate(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::Candidate {
            path: path.into(),
            message: message.into(),
        }
    }
}
