//! Property tests: whatever bytes an archive names an entry, an accepted path is a plain relative
//! path that stays inside the package; frontmatter parsing never panics.

use proptest::prelude::*;
use warrant_package::path::validate_raw;

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just(String::new()),
        Just("CON".to_owned()),
        Just("a\\b".to_owned()),
        Just("C:".to_owned()),
        Just("x\u{0}y".to_owned()),
        Just("é".to_owned()),
        "[a-zA-Z0-9._ -]{1,8}",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn accepted_paths_stay_inside(parts in prop::collection::vec(component(), 1..6), lead in prop_oneof![Just(""), Just("/"), Just("./"), Just("../")], is_dir in any::<bool>()) {
        let raw = format!("{lead}{}", parts.join("/"));
        if let Ok(path) = validate_raw(raw.as_bytes(), is_dir, 1024, 16) {
            prop_assert!(!path.starts_with('/'));
            prop_assert!(!path.contains('\\') && !path.contains(':') && !path.contains('\0'));
            for c in path.split('/') {
                prop_assert!(!c.is_empty() || path.is_empty(), "empty component in {path:?}");
                prop_assert!(c != ".." && c != ".", "dot component in {path:?}");
            }
            prop_assert!(!path.chars().any(char::is_control));
            // Joining it under a root never leaves the root, lexically.
            let joined = std::path::Path::new("/root").join(&path);
            prop_assert!(joined.starts_with("/root"));
            prop_assert!(joined.components().all(|c| !matches!(c, std::path::Component::ParentDir)));
        }
    }

    #[test]
    fn raw_bytes_never_panic(raw in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = validate_raw(&raw, false, 1024, 16);
        let _ = validate_raw(&raw, true, 1024, 16);
    }

    #[test]
    fn frontmatter_never_panics(body in "[-a-z:&*!\\[\\]{} \n\"'|>#0-9]{0,200}") {
        let text = format!("---\n{body}\n---\n# x\n");
        let _ = warrant_package::frontmatter::check(&text, "x");
    }
}
