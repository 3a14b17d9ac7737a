#!/usr/bin/env bash
# warrant eval: the system python3 with pytest (used by the eval shims and the harness re-run),
# and util-linux's unshare and setpriv (own pid namespace, killed with the harness).
set -euo pipefail

if ! command -v /usr/bin/python3 >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-pip
fi
if ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-pip
fi
if ! /usr/bin/python3 -c 'import pytest' >/dev/null 2>&1; then
    /usr/bin/python3 -m pip install --quiet --break-system-packages 'pytest>=7'
fi
if ! command -v unshare >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends util-linux
fi
/usr/bin/python3 -m pytest --version
