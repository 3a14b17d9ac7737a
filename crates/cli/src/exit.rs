//! Exit codes, the same across commands, and the error type that carries one.

use std::fmt;

/// Allowed, or the command succeeded.
pub const OK: u8 = 0;
/// Something failed its checks (`eval`: a scenario failed).
pub const FAILED: u8 = 1;
/// Invalid input: bad JSON, unknown field, wrong type, unreadable package.
pub const INVALID: u8 = 2;
/// The decision is `ask`: a person must approve the displayed consequence.
pub const ASK: u8 = 3;
/// Denied or refused by policy.
pub const DENY: u8 = 4;
/// Execution failure: the boundary could not be established, the agent could not start.
pub const EXEC_FAILURE: u8 = 5;

/// The `EXIT STATUS` section appended to `warrant --help`.
pub const EXIT_STATUS_HELP: &str = "\
EXIT STATUS:
  0    allow / success
  1    some checks failed (eval: a scenario failed)
  2    invalid input (bad JSON, unknown field, wrong type; the message names the field)
  3    ask: a person must approve the displayed consequence
  4    deny / refused by policy
  5    execution failure (boundary could not be established, agent could not start)
  exec passes the child's status through, and uses 124 (timeout), 125 (sandbox setup failed,
  fail closed), 126 (refused at launch re-validation), 127 (command not found)";

/// A command's failure: an exit code and the error to print on stderr.
pub struct Failure {
    /// The process exit code.
    pub code: u8,
    /// What went wrong, with context.
    pub error: anyhow::Error,
}

impl Failure {
    /// Invalid input (exit 2).
    pub fn invalid(error: impl Into<anyhow::Error>) -> Self {
        Self {
            code: INVALID,
            error: error.into(),
        }
    }

    /// A failure with an explicit exit code.
    pub fn with_code(code: u8, error: impl Into<anyhow::Error>) -> Self {
        Self {
            code,
            error: error.into(),
        }
    }

    /// Prints the error on stderr (secrets redacted) and returns the exit code.
    pub fn report(self) -> u8 {
        let text = format!("{:#}", self.error);
        eprintln!("warrant: error: {}", warrant_policy::secrets::redact(&text));
        self.code
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exit {}: {:#}", self.code, self.error)
    }
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(error: E) -> Self {
        Self {
            code: EXEC_FAILURE,
            error: error.into(),
        }
    }
}

/// The result of running one subcommand: an exit code, or a failure to report.
pub type CmdResult = Result<u8, Failure>;
