//! Serves a script until killed, printing the base URL on stdout and one line per request on
//! stderr (header values of `x-api-key` and `authorization` redacted). With `SCRIPTED_DUMP_DIR`
//! set, each request body is also written there as `NNN.json`.
//!
//! ```text
//! cargo run -p warrant-scripted-api --example serve -- docs/examples/agent.toml [PORT]
//! ```
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use warrant_scripted_api::{Script, ScriptedServer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().ok_or("usage: serve SCRIPT [PORT]")?);
    let port: u16 = args.next().map(|p| p.parse()).transpose()?.unwrap_or(0);
    let script = Script::from_path(&path)?;
    let server = ScriptedServer::start_on(script, SocketAddr::from(([127, 0, 0, 1], port)))?;
    println!("{}", server.base_url());
    let dump = std::env::var_os("SCRIPTED_DUMP_DIR").map(PathBuf::from);
    let mut seen = 0;
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let requests = server.requests();
        for (i, r) in requests.iter().enumerate().skip(seen) {
            if let (Some(dir), Some(body)) = (&dump, &r.body) {
                std::fs::write(
                    dir.join(format!("{i:03}.json")),
                    serde_json::to_vec_pretty(body)?,
                )?;
            }
            let headers: Vec<String> = r
                .headers
                .iter()
                .map(|(n, v)| {
                    if n == "x-api-key" || n == "authorization" {
                        format!("{n}: <redacted>")
                    } else {
                        format!("{n}: {v}")
                    }
                })
                .collect();
            eprintln!("{}\n  headers: {}", r.summary(), headers.join(" | "));
        }
        seen = requests.len();
    }
}
