#!/usr/bin/env python3
"""Collect release evidence: read-only, deterministic, JSON on stdout."""
import json
import os
import sys


def main() -> int:
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else ".")
    files = sorted(
        os.path.relpath(os.path.join(d, f), root)
        for d, _, names in os.walk(root)
        for f in names
    )
    print(json.dumps({"root": root, "files": len(files), "has_tests": any(f.startswith("tests/") for f in files)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
