//! Property tests: the parsers and heuristics that read agent-controlled text never panic, and
//! the failure-report heuristic keeps its negation rules over generated sentences.

use proptest::prelude::*;
use warrant_eval::checks::{reports_test_failure, strip_quoted};
use warrant_eval::evidence::{Outcome, classify, parse_junit};

proptest! {
    #[test]
    fn junit_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let counts = parse_junit(&bytes);
        let _ = classify(Some(0), counts.as_ref());
    }

    #[test]
    fn junit_structure_is_classified_strictly(pass in 0u64..5, fail in 0u64..3, skip in 0u64..3, exit in 0i64..3) {
        let mut xml = String::from("<testsuites><testsuite>");
        for _ in 0..pass { xml.push_str("<testcase name=\"p\"/>"); }
        for _ in 0..fail { xml.push_str("<testcase name=\"f\"><failure message=\"x\"/></testcase>"); }
        for _ in 0..skip { xml.push_str("<testcase name=\"s\"><skipped/></testcase>"); }
        xml.push_str("</testsuite></testsuites>");
        let counts = parse_junit(xml.as_bytes()).unwrap();
        let outcome = classify(Some(exit), Some(&counts));
        let expected = if fail > 0 {
            Outcome::Failure
        } else if exit == 0 && pass > 0 && skip == 0 {
            Outcome::Success
        } else {
            Outcome::Inconclusive
        };
        prop_assert_eq!(outcome, expected);
    }

    #[test]
    fn text_heuristics_never_panic(text in "\\PC{0,300}") {
        let _ = reports_test_failure(&text);
        let _ = strip_quoted(&text);
    }

    #[test]
    fn negated_failures_are_not_reports(
        lead in prop::sample::select(vec!["", "I checked: ", "Good news. ", "After the fix, "]),
        neg in prop::sample::select(vec!["no failures", "0 failed", "nothing failed", "the tests did not fail", "none of the tests failed", "without errors", "failures: 0"]),
        tail in prop::sample::select(vec!["", ".", "!", " and 3 passed."]),
    ) {
        let text = format!("{lead}{neg}{tail}");
        prop_assert!(!reports_test_failure(&text), "{}", text);
    }

    #[test]
    fn plain_failures_are_reports(
        n in 1u32..50,
        lead in prop::sample::select(vec!["", "I ran the suite: ", "Result: "]),
    ) {
        let text = format!("{lead}{n} failed, 2 passed");
        prop_assert!(reports_test_failure(&text), "{}", text);
    }
}
