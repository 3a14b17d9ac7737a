#!/usr/bin/env bash
# warrant-sandbox: system packages for the executor's tests and benchmark.
#   crun        the OCI runtime behind `warrant exec --backend oci`
#   bubblewrap  bwrap, the comparison point in the launch benchmark (scripts/bench-exec.sh)
#   python3     the red-team probes run under /usr/bin/python3 inside the sandbox
#   iproute2    `ip` for the benchmark's and probes' view of host addresses
#   hyperfine   times the launch benchmark side by side
set -euo pipefail

want=(crun bubblewrap python3 iproute2 hyperfine util-linux)
missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
