//! The script format: a list of turns, each one or more tool calls or a final text, with optional
//! conditions on what the previous tool result contained. See `docs/scripted-agent.md`.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Error;

/// Reply used for side calls (title generation, topic detection, probes) unless the script sets
/// `side_text`.
pub const DEFAULT_SIDE_TEXT: &str = "OK";
/// Final text sent when no turn is left to play, unless the script sets `end_text`.
pub const DEFAULT_END_TEXT: &str = "Scripted agent: no turn left in the script.";
/// Tool whose presence in a request's `tools` marks the main agent conversation, unless the script
/// sets `main_tool`.
pub const DEFAULT_MAIN_TOOL: &str = "Bash";
/// Largest number of scripted steps in one conversation, unless the script sets `max_steps`.
pub const DEFAULT_MAX_STEPS: usize = 50;

/// A scripted agent: the turns the server plays for the main agent conversation.
///
/// Parse one with [`Script::from_path`] (TOML or JSON) or [`Script::from_str`], or build one in
/// code with [`Script::new`] and [`Turn`]'s constructors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Script {
    /// Text answered to side calls (requests that are not the main conversation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_text: Option<String>,
    /// Final text answered once no turn matches or the script is exhausted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_text: Option<String>,
    /// Tool name that marks a request as the main agent conversation (default `Bash`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_tool: Option<String>,
    /// Step limit for one conversation (default 50); past it the server answers `end_text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<usize>,
    /// Fault injection: answer the first this-many main-conversation requests of each step with
    /// HTTP 529 `overloaded_error`, so tests can check that the agent's retries are harmless.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transient_errors: Option<u32>,
    /// The turns, in order. TOML: `[[turn]]` tables; JSON: a `turns` (or `turn`) array. Played
    /// for a conversation that no [`Agent`] claims.
    #[serde(rename = "turn", alias = "turns", default)]
    pub turns: Vec<Turn>,
    /// Agents picked by the conversation's prompt, so one server can play a different script per
    /// scenario. TOML: `[[agent]]` tables with `[[agent.turn]]`; JSON: an `agents` (or `agent`)
    /// array.
    #[serde(
        rename = "agent",
        alias = "agents",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub agents: Vec<Agent>,
}

/// A scripted agent for the conversations whose prompt matches, inside a [`Script`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Agent {
    /// Play this agent when the conversation's first user message contains every one of these
    /// strings (the first matching agent wins).
    #[serde(deserialize_with = "one_or_many")]
    pub when_prompt_contains: Vec<String>,
    /// ... and the conversation's opening context (the system prompt and every message before
    /// the first assistant turn, where Claude Code lists the available skills) contains every one
    /// of these strings.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub when_context_contains: Vec<String>,
    /// ... and the opening context contains none of these strings (e.g. a skill's listing, for
    /// the baseline run without the candidate skill).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub when_context_not_contains: Vec<String>,
    /// Final text once this agent's turns are exhausted (default: the script's `end_text`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_text: Option<String>,
    /// The turns, in order (`[[agent.turn]]`).
    #[serde(rename = "turn", alias = "turns", default)]
    pub turns: Vec<Turn>,
}

impl Agent {
    /// An agent playing `turns` for conversations whose prompt contains `needle`.
    pub fn new(needle: impl Into<String>, turns: Vec<Turn>) -> Self {
        Self {
            when_prompt_contains: vec![needle.into()],
            when_context_contains: Vec::new(),
            when_context_not_contains: Vec::new(),
            end_text: None,
            turns,
        }
    }

    /// This agent, only when the opening context contains `needle`.
    pub fn when_context_contains(mut self, needle: impl Into<String>) -> Self {
        self.when_context_contains.push(needle.into());
        self
    }

    /// This agent, only when the opening context does not contain `needle`.
    pub fn when_context_not_contains(mut self, needle: impl Into<String>) -> Self {
        self.when_context_not_contains.push(needle.into());
        self
    }

    /// Whether this agent claims a conversation with this prompt and opening context.
    pub fn matches(&self, prompt: &str, context: &str) -> bool {
        self.when_prompt_contains
            .iter()
            .all(|n| prompt.contains(n.as_str()))
            && self
                .when_context_contains
                .iter()
                .all(|n| context.contains(n.as_str()))
            && !self
                .when_context_not_contains
                .iter()
                .any(|n| context.contains(n.as_str()))
    }
}

/// One scripted assistant turn: an optional text, then zero or more tool calls.
///
/// A turn with tool calls ends with `stop_reason: "tool_use"`, and the agent answers with the tool
/// results; a turn without tool calls is a final text (`stop_reason: "end_turn"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Turn {
    /// Label other turns can `goto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Play this turn only when the previous tool results contain every one of these strings.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub when_result_contains: Vec<String>,
    /// Play this turn only when the previous tool results contain none of these strings.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub when_result_not_contains: Vec<String>,
    /// Text block sent before the tool calls (or the final answer when there are none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Shorthand for a single tool call: the tool's name (with `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Shorthand for a single tool call: the tool's input object (with `tool`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// Tool calls sent together in this turn. TOML: `[[turn.calls]]` tables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<ToolCall>,
    /// After this turn, continue at the turn with this `id` instead of the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goto: Option<String>,
    /// Play this turn at most this many times in one conversation (useful with `goto` loops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_visits: Option<u32>,
}

/// One tool call: the tool's name and its input object, e.g. `Bash` with `{command = "ls"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// Tool name as the agent knows it (`Bash`, `Read`, `Write`, `Edit`, ...).
    pub tool: String,
    /// Input object passed to the tool.
    #[serde(default = "empty_object")]
    pub input: Value,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

impl ToolCall {
    /// A call of `tool` with `input` (an object).
    pub fn new(tool: impl Into<String>, input: Value) -> Self {
        Self {
            tool: tool.into(),
            input,
        }
    }

    /// A `Bash` call running `command`.
    pub fn bash(command: impl Into<String>) -> Self {
        Self::new("Bash", serde_json::json!({ "command": command.into() }))
    }
}

impl Turn {
    /// A turn making these tool calls.
    pub fn tools(calls: Vec<ToolCall>) -> Self {
        Self {
            calls,
            ..Self::default()
        }
    }

    /// A turn running one `Bash` command.
    pub fn bash(command: impl Into<String>) -> Self {
        Self::tools(vec![ToolCall::bash(command)])
    }

    /// A final text turn.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// This turn, played only when the previous tool results contain `needle`.
    pub fn when_result_contains(mut self, needle: impl Into<String>) -> Self {
        self.when_result_contains.push(needle.into());
        self
    }

    /// This turn, played only when the previous tool results do not contain `needle`.
    pub fn when_result_not_contains(mut self, needle: impl Into<String>) -> Self {
        self.when_result_not_contains.push(needle.into());
        self
    }

    /// This turn with a label for `goto`.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// This turn, continuing at the turn labelled `id` afterwards.
    pub fn with_goto(mut self, id: impl Into<String>) -> Self {
        self.goto = Some(id.into());
        self
    }

    /// This turn, played at most `n` times.
    pub fn with_max_visits(mut self, n: u32) -> Self {
        self.max_visits = Some(n);
        self
    }

    /// The tool calls of this turn: the `tool`/`input` shorthand or the `calls` list.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        match &self.tool {
            Some(tool) => vec![ToolCall::new(
                tool.clone(),
                self.input.clone().unwrap_or_else(empty_object),
            )],
            None => self.calls.clone(),
        }
    }

    /// Whether this turn's conditions hold for the previous tool results (`None` before the first
    /// tool call: `when_result_contains` never holds then).
    pub fn matches(&self, previous: Option<&str>) -> bool {
        let text = previous.unwrap_or("");
        if !self.when_result_contains.is_empty() && previous.is_none() {
            return false;
        }
        self.when_result_contains
            .iter()
            .all(|n| text.contains(n.as_str()))
            && !self
                .when_result_not_contains
                .iter()
                .any(|n| text.contains(n.as_str()))
    }
}

/// Which turn the script plays at one step of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// Play the turn at this index of [`Script::turns`].
    Turn(usize),
    /// No turn is left (or the step limit is reached): answer the final `end_text`.
    End,
}

impl Script {
    /// A script with these turns and default settings.
    pub fn new(turns: Vec<Turn>) -> Self {
        Self {
            side_text: None,
            end_text: None,
            main_tool: None,
            max_steps: None,
            transient_errors: None,
            turns,
            agents: Vec::new(),
        }
    }

    /// Reads and validates a script file: JSON when the extension is `.json`, TOML otherwise.
    pub fn from_path(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: path.display().to_string(),
            source,
        })?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let parsed = if is_json {
            Self::from_json(&text)
        } else {
            Self::from_toml(&text)
        };
        parsed.map_err(|e| Error::InFile {
            path: path.display().to_string(),
            source: Box::new(e),
        })
    }

    /// Parses and validates a script from TOML, or from JSON when the text starts with `{`.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<Self, Error> {
        if text.trim_start().starts_with('{') {
            Self::from_json(text)
        } else {
            Self::from_toml(text)
        }
    }

    /// Parses and validates a TOML script.
    pub fn from_toml(text: &str) -> Result<Self, Error> {
        let script: Self = toml::from_str(text).map_err(|e| Error::Parse {
            format: "TOML",
            message: e.to_string(),
        })?;
        script.validate()?;
        Ok(script)
    }

    /// Parses and validates a JSON script.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let script: Self = serde_json::from_str(text).map_err(|e| Error::Parse {
            format: "JSON",
            message: e.to_string(),
        })?;
        script.validate()?;
        Ok(script)
    }

    /// Checks the script: every turn has a text or tool calls, tool names are set, inputs are
    /// objects, the `tool` shorthand and `calls` are not mixed, ids are unique and `goto` targets
    /// exist.
    pub fn validate(&self) -> Result<(), Error> {
        validate_turns(&self.turns)?;
        for (a, agent) in self.agents.iter().enumerate() {
            let in_agent = |e: Error| Error::InAgent {
                agent: a + 1,
                source: Box::new(e),
            };
            if agent.when_prompt_contains.iter().all(|n| n.is_empty()) {
                return Err(in_agent(Error::InvalidScript(
                    "`when_prompt_contains` is empty; give a string the scenario's prompt contains"
                        .into(),
                )));
            }
            if agent.turns.is_empty() {
                return Err(in_agent(Error::InvalidScript(
                    "has no turns; add `[[agent.turn]]` tables".into(),
                )));
            }
            validate_turns(&agent.turns).map_err(in_agent)?;
        }
        if self.max_steps == Some(0) {
            return Err(Error::InvalidScript(
                "`max_steps` is 0; leave it out or set at least 1".into(),
            ));
        }
        Ok(())
    }

    /// The text answered to side calls.
    pub fn side_text(&self) -> &str {
        self.side_text.as_deref().unwrap_or(DEFAULT_SIDE_TEXT)
    }

    /// The final text answered once the script is exhausted.
    pub fn end_text(&self) -> &str {
        self.end_text.as_deref().unwrap_or(DEFAULT_END_TEXT)
    }

    /// The tool that marks the main agent conversation.
    pub fn main_tool(&self) -> &str {
        self.main_tool.as_deref().unwrap_or(DEFAULT_MAIN_TOOL)
    }

    /// The step limit for one conversation.
    pub fn max_steps(&self) -> usize {
        self.max_steps.unwrap_or(DEFAULT_MAX_STEPS)
    }

    /// The turn to play next, given the tool results that followed each earlier step (`results[k]`
    /// is the text of every tool result answering step `k`).
    ///
    /// The choice is replayed from the start of the conversation, so the same conversation always
    /// gets the same answer (retries and duplicate requests are idempotent). From the cursor (the
    /// turn after the last one played, or its `goto` target), the first turn whose conditions hold
    /// and whose `max_visits` is not used up is played; turns skipped over stay behind the cursor.
    pub fn choose(&self, results: &[String]) -> Choice {
        play(&self.turns, self.max_steps(), results)
    }

    /// The turns and final text for a conversation whose first user message is `prompt` and
    /// whose opening context is `context`: the first [`Agent`] that [`Agent::matches`] them, else
    /// the top-level turns.
    pub fn conversation_for(&self, prompt: &str, context: &str) -> (&[Turn], &str) {
        match self.agents.iter().find(|a| a.matches(prompt, context)) {
            Some(agent) => (
                &agent.turns,
                agent.end_text.as_deref().unwrap_or(self.end_text()),
            ),
            None => (&self.turns, self.end_text()),
        }
    }

    /// Like [`Script::choose`], for the conversation with this prompt and opening context; the
    /// index in [`Choice::Turn`] is into the turns [`Script::conversation_for`] returns.
    pub fn choose_for(&self, prompt: &str, context: &str, results: &[String]) -> Choice {
        play(
            self.conversation_for(prompt, context).0,
            self.max_steps(),
            results,
        )
    }
}

/// Replays `turns` over the conversation's results; see [`Script::choose`].
fn play(turns: &[Turn], max_steps: usize, results: &[String]) -> Choice {
    let step = results.len();
    if step >= max_steps {
        return Choice::End;
    }
    let ids: HashMap<&str, usize> = turns
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.id.as_deref().map(|id| (id, i)))
        .collect();
    let mut cursor = 0usize;
    let mut visits = vec![0u32; turns.len()];
    for k in 0..=step {
        let previous = if k == 0 {
            None
        } else {
            Some(results[k - 1].as_str())
        };
        let picked = (cursor..turns.len()).find(|&i| {
            let t = &turns[i];
            t.max_visits.is_none_or(|m| visits[i] < m) && t.matches(previous)
        });
        let Some(i) = picked else {
            return Choice::End;
        };
        if k == step {
            return Choice::Turn(i);
        }
        let t = &turns[i];
        if t.tool_calls().is_empty() {
            // A final text ended the conversation at step k; anything after it is past the end.
            return Choice::End;
        }
        visits[i] += 1;
        cursor = match &t.goto {
            Some(target) => ids.get(target.as_str()).copied().unwrap_or(turns.len()),
            None => i + 1,
        };
    }
    Choice::End
}

/// Checks one list of turns (the script's or an agent's).
fn validate_turns(turns: &[Turn]) -> Result<(), Error> {
    let invalid = |turn: usize, message: String| Error::InvalidTurn { turn, message };
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, t) in turns.iter().enumerate() {
        let n = i + 1;
        if let Some(id) = &t.id {
            if id.is_empty() {
                return Err(invalid(n, "`id` is empty; give the turn a label".into()));
            }
            if let Some(first) = ids.insert(id.as_str(), n) {
                return Err(invalid(
                    n,
                    format!("`id` `{id}` is already used by turn {first}; ids must be unique"),
                ));
            }
        }
        if t.tool.is_some() && !t.calls.is_empty() {
            return Err(invalid(
                    n,
                    "has both `tool` and `calls`; use `tool`/`input` for one call or `calls` for several"
                        .into(),
                ));
        }
        if t.input.is_some() && t.tool.is_none() {
            return Err(invalid(
                n,
                "has `input` without `tool`; add `tool = \"Bash\"` (or the tool's name)".into(),
            ));
        }
        let calls = t.tool_calls();
        if calls.is_empty() && t.text.is_none() {
            return Err(invalid(
                n,
                "has neither tool calls nor `text`; add `tool`/`input`, `calls` or a final `text`"
                    .into(),
            ));
        }
        for (c, call) in calls.iter().enumerate() {
            if call.tool.trim().is_empty() {
                return Err(invalid(
                    n,
                    format!("call {} has an empty `tool` name", c + 1),
                ));
            }
            if !call.input.is_object() {
                return Err(invalid(
                    n,
                    format!(
                        "call {} (`{}`) has an `input` that is not an object; write e.g. `input = {{ command = \"ls\" }}`",
                        c + 1,
                        call.tool
                    ),
                ));
            }
        }
        if calls.is_empty() && t.goto.is_some() {
            return Err(invalid(
                n,
                "is a final text but has `goto`; a final text ends the conversation".into(),
            ));
        }
        if t.max_visits == Some(0) {
            return Err(invalid(
                n,
                "`max_visits` is 0, so it never plays; remove the turn".into(),
            ));
        }
    }
    for (i, t) in turns.iter().enumerate() {
        if let Some(target) = &t.goto
            && !ids.contains_key(target.as_str())
        {
            return Err(invalid(
                i + 1,
                format!("`goto` names `{target}` but no turn has that `id`"),
            ));
        }
    }
    Ok(())
}

impl std::str::FromStr for Script {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Script::from_str(s)
    }
}
