#!/usr/bin/env bash
# warrant-policy: Node.js is the WHATWG URL reference of the origin differential test
# (crates/policy/tests/whatwg.rs), and git is used by examples and tests.
set -euo pipefail
missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v git >/dev/null 2>&1 || missing+=(git)
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
