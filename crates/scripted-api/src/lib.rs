//! A scripted Anthropic Messages API server: answers by request content, streams SSE, follows a
//! script of turns, so a real agent CLI (Claude Code's `claude`) can run offline in tests and demos.
//!
//! ```no_run
//! use warrant_scripted_api::{Script, ScriptedServer};
//!
//! let script = Script::from_str(r#"
//! [[turn]]
//! tool = "Bash"
//! input = { command = "python -m pytest -q" }
//!
//! [[turn]]
//! text = "All tests pass."
//! "#)?;
//! let server = ScriptedServer::start(script)?;
//! // Run `claude -p ...` with ANTHROPIC_BASE_URL = server.base_url(), then inspect:
//! for request in server.requests() {
//!     println!("{} {} {:?}", request.method, request.path, request.kind);
//! }
//! server.stop();
//! # Ok::<(), warrant_scripted_api::Error>(())
//! ```
//!
//! # How requests are answered
//!
//! - `POST /v1/messages` (any query string): when `max_tokens` is 1 it is a probe
//!   ([`RequestKind::Probe`]) and gets the script's `side_text`; when its `tools` include the
//!   script's main tool (`Bash` by default) it is the main agent conversation
//!   ([`RequestKind::Main`]) and gets the scripted turn for its step; anything else is a side call
//!   ([`RequestKind::Side`], title generation, topic detection, ...) and gets `side_text`. A
//!   Claude Code subagent's request (system prompt marked `cc_is_subagent=true`) is
//!   [`RequestKind::Subagent`] and gets `side_text` too, so it never replays the main script.
//! - The script's first `[[agent]]` whose `when_prompt_contains` occur in the conversation's first
//!   user message (and whose `when_context_contains` / `when_context_not_contains` hold for the
//!   opening context, where Claude Code lists the skills) plays that conversation; else the
//!   top-level turns. One server can so serve a whole suite, candidate and baseline runs alike.
//! - The step is the number of assistant turns already in `messages` (consecutive assistant
//!   messages count once), and the turn is chosen by replaying the script over the tool results in
//!   the conversation ([`Script::choose`]). The server keeps no per-conversation counter, so
//!   retries and duplicate requests get the same answer.
//! - `stream: true` is answered as SSE (`message_start`, `content_block_start`,
//!   `text_delta`/`input_json_delta`, `content_block_stop`, `message_delta` with `stop_reason` and
//!   usage, `message_stop`); otherwise as one JSON `message`. `usage` carries token estimates (one
//!   per four bytes of request body and of reply content).
//! - `POST /v1/messages/count_tokens` answers `{"input_tokens": N}`; `HEAD` on any path answers
//!   200 with no body; other paths answer 404 with an Anthropic-style error body.
//!
//! Every request is recorded ([`ScriptedServer::requests`]), headers and parsed JSON body
//! included, exactly as received (the API key header too: redact before printing).
#![forbid(unsafe_code)]

pub mod conversation;
pub mod response;
pub mod script;

use std::collections::HashMap;
use std::io::Read;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use conversation::{RequestKind, ToolResult};
pub use response::Reply;
pub use script::{Agent, Choice, Script, ToolCall, Turn};

/// Largest request body the server reads (bigger bodies get 413).
pub const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

/// Errors from loading a script or starting the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The script file could not be read.
    #[error("cannot read script file `{path}`: {source}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The script text is not valid TOML/JSON for the script format.
    #[error("invalid {format} script: {message} (see docs/scripted-agent.md for the format)")]
    Parse {
        /// `TOML` or `JSON`.
        format: &'static str,
        /// The parser's message, with the location.
        message: String,
    },
    /// A turn of the script is invalid.
    #[error("script turn {turn} {message}")]
    InvalidTurn {
        /// One-based turn number.
        turn: usize,
        /// What is wrong and what to do.
        message: String,
    },
    /// An error inside an `[[agent]]` of the script.
    #[error("script agent {agent}: {source}")]
    InAgent {
        /// One-based agent number.
        agent: usize,
        /// The error.
        source: Box<Error>,
    },
    /// A script-wide setting is invalid.
    #[error("invalid script: {0}")]
    InvalidScript(String),
    /// An error inside a named script file.
    #[error("in script file `{path}`: {source}")]
    InFile {
        /// The file.
        path: String,
        /// The error.
        source: Box<Error>,
    },
    /// The server could not bind its address.
    #[error("cannot start the scripted API server on `{addr}`: {message}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        message: String,
    },
}

/// One request the server received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// HTTP method (`POST`, `HEAD`, ...).
    pub method: String,
    /// Path with query string, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// Headers as received, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON, `None` when empty or not JSON.
    pub body: Option<Value>,
    /// How the server classified (and answered) it.
    pub kind: RequestKind,
    /// HTTP status the server answered with.
    pub status: u16,
}

impl RecordedRequest {
    /// The first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path without its query string.
    pub fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or("")
    }

    /// Every `tool_result` block in the body's `messages`.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        self.body
            .as_ref()
            .map(conversation::tool_results)
            .unwrap_or_default()
    }

    /// One line for logs: method, path, status, kind, and the body's `model`, `max_tokens`,
    /// `stream`, tool names and message count. Header values and message text are left out, so
    /// no key or prompt content reaches the log.
    pub fn summary(&self) -> String {
        let body = self.body.as_ref();
        let field = |k: &str| {
            body.and_then(|b| b.get(k))
                .map_or_else(|| "-".to_owned(), Value::to_string)
        };
        let tools: Vec<&str> = body
            .and_then(|b| b.get("tools"))
            .and_then(Value::as_array)
            .map(|t| t.iter().filter_map(|t| t.get("name")?.as_str()).collect())
            .unwrap_or_default();
        let messages = body
            .and_then(|b| b.get("messages"))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let kind = match &self.kind {
            RequestKind::Main { step } => format!("main step {step}"),
            RequestKind::Probe => "probe".into(),
            RequestKind::Subagent => "subagent".into(),
            RequestKind::Side => "side".into(),
            RequestKind::CountTokens => "count_tokens".into(),
            RequestKind::Other => "other".into(),
        };
        format!(
            "{} {} -> {} [{kind}] model={} max_tokens={} stream={} messages={messages} tools=[{}]",
            self.method,
            self.path,
            self.status,
            field("model"),
            field("max_tokens"),
            field("stream"),
            tools.join(",")
        )
    }

    /// Whether this is a turn of the main agent conversation.
    pub fn is_main(&self) -> bool {
        matches!(self.kind, RequestKind::Main { .. })
    }
}

/// Most requests kept by [`ScriptedServer::requests`]; later ones are answered but not recorded
/// (counted by [`ScriptedServer::dropped_records`]).
pub const MAX_RECORDED_REQUESTS: usize = 10_000;
/// Most request-body bytes kept in the record; past it, requests are recorded with `body: None`.
pub const MAX_RECORDED_BODY_BYTES: usize = 256 * 1024 * 1024;

#[derive(Default)]
struct Records {
    list: Vec<RecordedRequest>,
    body_bytes: usize,
    dropped: usize,
}

struct State {
    script: Script,
    requests: Mutex<Records>,
    counter: AtomicU64,
    stopping: AtomicBool,
    faults: Mutex<HashMap<usize, u32>>,
}

/// A running scripted server on a background thread. Stops on [`ScriptedServer::stop`] or drop.
pub struct ScriptedServer {
    addr: SocketAddr,
    server: Option<Arc<tiny_http::Server>>,
    state: Arc<State>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for ScriptedServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl ScriptedServer {
    /// Starts a server for `script` on `127.0.0.1` at a free port.
    pub fn start(script: Script) -> Result<Self, Error> {
        Self::start_on(script, SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Starts a server for `script` on `addr` (port 0 picks a free port).
    pub fn start_on(script: Script, addr: SocketAddr) -> Result<Self, Error> {
        script.validate()?;
        let bind_err = |e: &dyn std::fmt::Display| Error::Bind {
            addr: addr.to_string(),
            message: e.to_string(),
        };
        let listener = TcpListener::bind(addr).map_err(|e| bind_err(&e))?;
        let addr = listener.local_addr().map_err(|e| bind_err(&e))?;
        let server =
            Arc::new(tiny_http::Server::from_listener(listener, None).map_err(|e| bind_err(&e))?);
        let state = Arc::new(State {
            script,
            requests: Mutex::new(Records::default()),
            counter: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
            faults: Mutex::new(HashMap::new()),
        });
        let thread = {
            let server = Arc::clone(&server);
            let state = Arc::clone(&state);
            std::thread::Builder::new()
                .name("scripted-api".into())
                .spawn(move || {
                    loop {
                        match server.recv() {
                            // One thread per request: a client that stalls mid-body (an agent
                            // can reach this port from its shell) must not hold up the others.
                            Ok(request) => {
                                let state = Arc::clone(&state);
                                let spawned = std::thread::Builder::new()
                                    .name("scripted-api-request".into())
                                    .spawn(move || handle(&state, request));
                                // Out of threads: the request is dropped and its client sees the
                                // connection close, as with any overloaded server.
                                drop(spawned);
                            }
                            // `unblock` from `shutdown`; an accept error is not a reason to stop.
                            Err(_) if state.stopping.load(Ordering::SeqCst) => break,
                            Err(_) => continue,
                        }
                    }
                })
                .map_err(|e| bind_err(&e))?
        };
        Ok(Self {
            addr,
            server: Some(server),
            state,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`, the value for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The script being played.
    pub fn script(&self) -> &Script {
        &self.state.script
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.requests).list.clone()
    }

    /// How many requests were answered but not recorded because [`MAX_RECORDED_REQUESTS`] was
    /// reached (the record is bounded, so an agent posting in a loop cannot exhaust memory).
    pub fn dropped_records(&self) -> usize {
        lock(&self.state.requests).dropped
    }

    /// The requests of the main agent conversation, in arrival order.
    pub fn main_requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.requests)
            .list
            .iter()
            .filter(|r| r.is_main())
            .cloned()
            .collect()
    }

    /// Stops the server: no new request is answered, and once this returns the port is closed.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let Some(server) = self.server.take() else {
            return;
        };
        self.state.stopping.store(true, Ordering::SeqCst);
        server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        // Dropping the last handle tells tiny_http's accept thread to close the listener, which it
        // does asynchronously; wait (bounded) until connections are refused.
        drop(server);
        for _ in 0..2000 {
            match std::net::TcpStream::connect_timeout(&self.addr, Duration::from_millis(50)) {
                Ok(_) => std::thread::sleep(Duration::from_micros(500)),
                Err(_) => break,
            }
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn respond(request: tiny_http::Request, status: u16, content_type: &str, body: Vec<u8>, n: u64) {
    let mut response = tiny_http::Response::from_data(body).with_status_code(status);
    let request_id = format!("req_scripted_{n}");
    for (name, value) in [
        ("content-type", content_type),
        ("request-id", request_id.as_str()),
    ] {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    }
    // The client may have gone away; nothing to do then.
    let _ = request.respond(response);
}

fn handle(state: &State, mut request: tiny_http::Request) {
    let n = state.counter.fetch_add(1, Ordering::Relaxed);
    let method = request.method().as_str().to_owned();
    let path = request.url().to_owned();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .map(|h| {
            (
                h.field.as_str().as_str().to_ascii_lowercase(),
                h.value.as_str().to_owned(),
            )
        })
        .collect();
    let mut raw = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY_BYTES + 1)
        .read_to_end(&mut raw);
    let body: Option<Value> = serde_json::from_slice(&raw).ok();
    let path_only = path.split('?').next().unwrap_or("").to_owned();

    let record = |kind: RequestKind, status: u16| {
        let mut records = lock(&state.requests);
        if records.list.len() >= MAX_RECORDED_REQUESTS {
            records.dropped += 1;
            return;
        }
        let keep_body = records.body_bytes + raw.len() <= MAX_RECORDED_BODY_BYTES;
        if keep_body {
            records.body_bytes += raw.len();
        }
        records.list.push(RecordedRequest {
            method: method.clone(),
            path: path.clone(),
            headers: headers.clone(),
            body: if keep_body { body.clone() } else { None },
            kind,
            status,
        });
    };

    if read.is_err() || raw.len() as u64 > MAX_BODY_BYTES {
        record(RequestKind::Other, 413);
        let err = response::error_body("request_too_large", "request body unreadable or too large");
        return respond(
            request,
            413,
            "application/json",
            err.to_string().into_bytes(),
            n,
        );
    }
    if method == "HEAD" {
        record(RequestKind::Other, 200);
        return respond(request, 200, "text/plain", Vec::new(), n);
    }
    let is_post = method == "POST";
    match (is_post, path_only.as_str()) {
        (true, "/v1/messages/count_tokens") => {
            record(RequestKind::CountTokens, 200);
            let tokens = response::estimate_tokens(raw.len());
            let out = json!({ "input_tokens": tokens });
            respond(
                request,
                200,
                "application/json",
                out.to_string().into_bytes(),
                n,
            )
        }
        (true, "/v1/messages") => {
            let Some(body) = body.as_ref().filter(|b| b.is_object()) else {
                record(RequestKind::Other, 400);
                let err = response::error_body(
                    "invalid_request_error",
                    "request body is not a JSON object",
                );
                return respond(
                    request,
                    400,
                    "application/json",
                    err.to_string().into_bytes(),
                    n,
                );
            };
            let (kind, reply) = answer(state, body, raw.len(), n);
            if let RequestKind::Main { step } = kind
                && inject_fault(state, step)
            {
                record(kind, 529);
                let err = response::error_body(
                    "overloaded_error",
                    "Overloaded (injected by the script's `transient_errors`)",
                );
                return respond(
                    request,
                    529,
                    "application/json",
                    err.to_string().into_bytes(),
                    n,
                );
            }
            record(kind, 200);
            if body.get("stream").and_then(Value::as_bool) == Some(true) {
                respond(
                    request,
                    200,
                    "text/event-stream",
                    reply.to_sse().into_bytes(),
                    n,
                )
            } else {
                respond(
                    request,
                    200,
                    "application/json",
                    reply.to_json().to_string().into_bytes(),
                    n,
                )
            }
        }
        _ => {
            record(RequestKind::Other, 404);
            let err = response::error_body(
                "not_found_error",
                &format!("the scripted server does not serve `{method} {path_only}`"),
            );
            respond(
                request,
                404,
                "application/json",
                err.to_string().into_bytes(),
                n,
            )
        }
    }
}

/// Whether this main request for `step` gets an injected 529 (`transient_errors`).
fn inject_fault(state: &State, step: usize) -> bool {
    let limit = state.script.transient_errors.unwrap_or(0);
    if limit == 0 {
        return false;
    }
    let mut faults = lock(&state.faults);
    let count = faults.entry(step).or_insert(0);
    if *count < limit {
        *count += 1;
        true
    } else {
        false
    }
}

/// Classifies a `/v1/messages` body and builds its reply.
fn answer(state: &State, body: &Value, body_len: usize, n: u64) -> (RequestKind, Reply) {
    let script = &state.script;
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("scripted-model")
        .to_owned();
    let input_tokens = response::estimate_tokens(body_len);
    let text_block = |t: &str| json!({"type": "text", "text": t});
    let side = |kind: RequestKind| {
        let reply = Reply::new(
            format!("msg_scripted_side_{n}"),
            model.clone(),
            vec![text_block(script.side_text())],
            input_tokens,
        );
        (kind, reply)
    };
    if body.get("max_tokens").and_then(Value::as_u64) == Some(1) {
        return side(RequestKind::Probe);
    }
    if !conversation::has_tool(body, script.main_tool()) {
        return side(RequestKind::Side);
    }
    if conversation::is_subagent(body) {
        return side(RequestKind::Subagent);
    }
    let results = conversation::steps(body);
    let step = results.len();
    let prompt = conversation::prompt(body);
    let context = conversation::opening_context(body);
    let (turns, end_text) = script.conversation_for(&prompt, &context);
    let content = match script.choose_for(&prompt, &context, &results) {
        Choice::Turn(i) => {
            let turn = &turns[i];
            let mut content = Vec::new();
            if let Some(text) = &turn.text {
                content.push(text_block(text));
            }
            for (c, call) in turn.tool_calls().into_iter().enumerate() {
                content.push(json!({
                    "type": "tool_use",
                    "id": format!("toolu_scripted_{step}_{c}"),
                    "name": call.tool,
                    "input": call.input,
                }));
            }
            content
        }
        Choice::End => vec![text_block(end_text)],
    };
    let reply = Reply::new(format!("msg_scripted_{step}"), model, content, input_tokens);
    (RequestKind::Main { step }, reply)
}
