//! Differential test: origin normalization agrees with a WHATWG URL parser (Node's `URL`) on a
//! table of awkward hosts. Where warrant is deliberately stricter (userinfo, port 0, http), the
//! table says so and warrant must reject.

use std::process::Command;

use warrant_policy::origin::normalize_url;

const AWKWARD: &[&str] = &[
    "https://api.example.test",
    "https://api.example.test:443",
    "https://api.example.test:8443/x?y#z",
    "https://API.Example.TEST./path",
    "https://bücher.example/",
    "https://xn--bcher-kva.example/",
    "https://ＥＸＡＭＰＬＥ.test/",
    "https://example.test\u{3002}com/",
    "https://faß.example/",
    "https://0x7f.1/",
    "https://0x7f000001/",
    "https://2130706433/",
    "https://0177.0.0.1/",
    "https://127.1/",
    "https://127.0.0.1./",
    "https://[::1]/",
    "https://[0:0:0:0:0:0:0:1]:8443/",
    "https://[::ffff:127.0.0.1]/",
    "https://[FD00::0001]/",
    "https://169.254.169.254/latest",
    "https://example.test:65535/",
    "https://example.test:65536/",
    "https://example.test:-1/",
    "https://example.test:0443/",
    "https://exa mple.test/",
    "https://exa%2Fmple.test/",
    "https://example.test%00/",
    "https:example.test",
    "https:/example.test",
    "https:\\\\example.test\\a",
    "https://",
    "https://.",
    "https://a..b/",
    "https://256.256.256.256/",
    "https://0x100000000/",
    "https://1.2.3.4.5/",
    "https://example.test:443:443/",
    "HTTPS://EXAMPLE.TEST/",
    "https://\u{200b}example.test/",
    "https://ex\u{ad}ample.test/",
    "https://xn--/",
    "https://-example.test/",
    "https://example-.test/",
    "https://例え.テスト/",
    "https://user:pass@example.test/",
    "https://@example.test/",
    "https://example.test:0/",
    "http://example.test/",
];

/// Inputs WHATWG accepts and warrant deliberately rejects: empty DNS labels cannot name a real
/// host, and accepting them would give a parser-differential foothold between warrant and the
/// egress resolver.
const STRICTER: &[&str] = &["https://.", "https://a..b/"];

#[test]
fn origins_agree_with_the_whatwg_parser() {
    let script = r#"
const inputs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = inputs.map((s) => {
  try {
    const u = new URL(s);
    return { ok: true, protocol: u.protocol, hostname: u.hostname, port: u.port, user: u.username + u.password };
  } catch (e) {
    return { ok: false };
  }
});
process.stdout.write(JSON.stringify(out));
"#;
    let mut child = Command::new("node")
        .arg("-e")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node (the WHATWG reference) must be installed; scripts/setup installs it");
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().expect("stdin");
        stdin
            .write_all(serde_json::to_string(AWKWARD).expect("json").as_bytes())
            .expect("write");
    }
    let output = child.wait_with_output().expect("node runs");
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reference: Vec<serde_json::Value> =
        serde_json::from_slice(&output.stdout).expect("node output");
    let mut disagreements = Vec::new();
    let mut compared = 0;
    for (input, r) in AWKWARD.iter().zip(&reference) {
        let ours = normalize_url(input);
        let node_ok = r["ok"].as_bool().unwrap_or(false);
        if !node_ok {
            if let Ok(n) = &ours {
                disagreements.push(format!(
                    "{input:?}: WHATWG rejects it, warrant accepts {}",
                    n.origin
                ));
            }
            continue;
        }
        let protocol = r["protocol"].as_str().unwrap_or_default();
        let port = r["port"].as_str().unwrap_or_default();
        let stricter = STRICTER.contains(input)
            || protocol != "https:"
            || !r["user"].as_str().unwrap_or_default().is_empty()
            || port == "0";
        if stricter {
            if ours.is_ok() {
                disagreements.push(format!("{input:?}: warrant must reject (http, userinfo, port 0 or an empty label) but accepted"));
            }
            continue;
        }
        compared += 1;
        let host = r["hostname"]
            .as_str()
            .unwrap_or_default()
            .trim_end_matches('.')
            .to_owned();
        let port: u16 = if port.is_empty() {
            443
        } else {
            port.parse().unwrap_or(0)
        };
        match ours {
            Err(e) => disagreements.push(format!(
                "{input:?}: WHATWG accepts ({host}:{port}), warrant rejects: {e}"
            )),
            Ok(n) => {
                if n.origin.host != host || n.origin.port != port {
                    disagreements.push(format!(
                        "{input:?}: WHATWG {host}:{port}, warrant {}:{}",
                        n.origin.host, n.origin.port
                    ));
                }
            }
        }
    }
    assert!(
        compared >= 20,
        "too few comparable inputs ({compared}); the table lost its teeth"
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
