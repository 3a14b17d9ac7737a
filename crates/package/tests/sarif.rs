//! SARIF output validates against the SARIF 2.1.0 JSON Schema (rtm.5, shipped in
//! tests/data/, see its README for provenance).

use warrant_package::{ReadOptions, report};

fn schema() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sarif-2.1.0-rtm.5.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The shipped schema has one `pattern` for `language` (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`,
/// used by `run` and `toolComponent`) with a stray `]` that the crate's meta-schema check rejects
/// as a regex. warrant never emits `language`; the test replaces exactly those patterns with their
/// evident intent and leaves the rest of the schema untouched.
fn validator(schema: &serde_json::Value) -> jsonschema::Validator {
    fn patch(v: &mut serde_json::Value, n: &mut usize) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, child) in map.iter_mut() {
                    if k == "pattern" && child == "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$" {
                        *child = serde_json::json!("^[a-zA-Z]{2}(-[a-zA-Z]{2})?$");
                        *n += 1;
                    } else {
                        patch(child, n);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|c| patch(c, n)),
            _ => {}
        }
    }
    let mut schema = schema.clone();
    let mut patched = 0;
    patch(&mut schema, &mut patched);
    assert_eq!(patched, 2, "schema changed; revisit this patch");
    jsonschema::options().build(&schema).unwrap()
}

fn examples() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills")
}

#[test]
fn sarif_for_benign_malicious_and_hostile_packages_is_schema_valid() {
    let schema = schema();
    let validator = validator(&schema);
    let tmp = tempfile::tempdir().unwrap();
    let mut inspections = vec![
        warrant_package::inspect(
            &examples().join("release-readiness"),
            &ReadOptions::default(),
        )
        .unwrap(),
        warrant_package::inspect(
            &examples().join("malicious-example"),
            &ReadOptions::default(),
        )
        .unwrap(),
    ];
    for case in warrant_package::corpus::archive_cases()
        .into_iter()
        .filter(|c| c.name != "tar-100k-files")
    {
        let path = tmp.path().join(format!("{}-{}", case.name, case.file));
        std::fs::write(&path, &case.bytes).unwrap();
        inspections.push(warrant_package::inspect(&path, &ReadOptions::default()).unwrap());
    }
    for inspection in &inspections {
        let sarif = report::sarif(inspection);
        let errors: Vec<String> = validator
            .iter_errors(&sarif)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{}: {}",
            inspection.package.source,
            errors.join("\n")
        );
        assert_eq!(sarif["version"], "2.1.0");
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), inspection.findings.len());
        for result in results {
            let index = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(
                sarif["runs"][0]["tool"]["driver"]["rules"][index]["id"],
                result["ruleId"]
            );
        }
    }
    let malicious = report::sarif(&inspections[1]);
    let rules: Vec<&str> = malicious["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(
        rules.contains(&"load-time-exec") && rules.contains(&"pipe-to-shell"),
        "{rules:?}"
    );
}

#[test]
fn the_validator_rejects_a_broken_log() {
    // The check above is only meaningful if the schema really constrains output.
    let validator = validator(&schema());
    let inspection = warrant_package::inspect(
        &examples().join("malicious-example"),
        &ReadOptions::default(),
    )
    .unwrap();
    let mut broken = report::sarif(&inspection);
    broken["runs"][0]["results"][0]["level"] = serde_json::json!("fatal");
    assert!(!validator.is_valid(&broken));
    let mut broken = report::sarif(&inspection);
    broken["version"] = serde_json::json!("2.0.0");
    assert!(!validator.is_valid(&broken));
    let mut broken = report::sarif(&inspection);
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        serde_json::json!(0);
    assert!(!validator.is_valid(&broken));
}
