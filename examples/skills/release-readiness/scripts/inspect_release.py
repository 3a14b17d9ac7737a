#!/usr/bin/env python3
"""Print JSON evidence about whether a project directory looks ready to release.

Read-only, deterministic, standard library only: it reads files under the given directory,
never writes, never opens a network connection and never runs another program.
"""

import argparse
import json
import os
import re
import sys
import tomllib

LARGE_FILE = 50 * 1024 * 1024


def read_version(root):
    """Return (version, source file) from the first project manifest found."""
    for name in ("pyproject.toml", "Cargo.toml"):
        path = os.path.join(root, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                data = tomllib.load(handle)
            for table in ("project", "package"):
                version = data.get(table, {}).get("version")
                if isinstance(version, str):
                    return version, name
    path = os.path.join(root, "package.json")
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as handle:
            version = json.load(handle).get("version")
        if isinstance(version, str):
            return version, "package.json"
    return None, None


def changelog_mentions(root, version):
    path = os.path.join(root, "CHANGELOG.md")
    if version is None or not os.path.isfile(path):
        return False
    with open(path, encoding="utf-8", errors="replace") as handle:
        return re.search(r"^#+ .*\b" + re.escape(version) + r"\b", handle.read(), re.M) is not None


def large_files(root):
    found = []
    for directory, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules", "target"))
        for name in sorted(files):
            path = os.path.join(directory, name)
            if not os.path.islink(path) and os.path.getsize(path) > LARGE_FILE:
                found.append(os.path.relpath(path, root))
    return found


def inspect(root):
    version, source = read_version(root)
    tests = os.path.join(root, "tests")
    big = large_files(root)
    checks = [
        {"check": "version", "ok": version is not None, "evidence": f"{source}: {version}" if version else "no version found"},
        {"check": "changelog", "ok": changelog_mentions(root, version), "evidence": "CHANGELOG.md"},
        {"check": "tests", "ok": os.path.isdir(tests) and bool(os.listdir(tests)), "evidence": "tests/"},
        {"check": "license", "ok": any(os.path.isfile(os.path.join(root, n)) for n in ("LICENSE", "LICENSE.md", "COPYING")), "evidence": "LICENSE"},
        {"check": "no-large-files", "ok": not big, "evidence": big},
    ]
    return {"root": os.path.abspath(root), "ready": all(c["ok"] for c in checks), "checks": checks}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", help="project directory (default: .)")
    parser.add_argument("--format", choices=["json"], default="json")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.root):
        print(json.dumps({"error": f"not a directory: {args.root}"}))
        return 2
    print(json.dumps(inspect(args.root), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
