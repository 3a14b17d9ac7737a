#!/usr/bin/env bash
# Launch overhead of `warrant exec -- /bin/true`, side by side in one hyperfine run with bare
# /bin/true, bwrap with comparable isolation, and crun on an equivalent bundle.
#
#   scripts/bench-exec.sh [RUNS]        (default 200 runs each; needs root, crun, bwrap, hyperfine)
#
# Overhead = mean(x) - mean(/bin/true). Prints the table and the ratios warrant/bwrap and
# warrant/crun. Results land in target/bench-exec.json.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-200}"
for tool in hyperfine bwrap crun python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool: run scripts/setup.d/40-sandbox.sh" >&2; exit 2; }
done
cargo build --release -q -p warrant-cli
WARRANT="$PWD/target/release/warrant"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK"

# The profile: only /usr, private /tmp, no network, every control on (as `readonly` minus the workspace).
cat > "$WORK/bench.toml" <<'TOML'
version = 1
name = "bench"
cwd = "/tmp"
[filesystem]
read_only = ["/usr"]
[env]
set = { PATH = "/usr/bin:/bin" }
TOML
# The same with cgroups off (rlimits only), the closer match to bwrap, which creates no cgroups.
sed 's/^name = "bench"$/name = "bench-nocg"/' "$WORK/bench.toml" > "$WORK/bench-nocg.toml"
printf '[limits]\nwall_time_secs = 60\ncpu_time_secs = 30\nmemory_mb = 512\npids = 64\nopen_files = 256\nfile_size_mb = 64\noutput_bytes = 1048576\ncgroup = "off"\n' >> "$WORK/bench-nocg.toml"
export WARRANT_AUDIT_LOG="$WORK/audit.jsonl"

# bwrap, as close as it gets: all namespaces, uid 1000, /usr read-only, fresh /proc, minimal /dev,
# private /tmp, new session, no capabilities, die with parent. (No seccomp or Landlock: bwrap takes
# a seccomp program only as a pre-compiled fd, and has no Landlock.)
BWRAP="bwrap --unshare-all --uid 1000 --gid 1000 --die-with-parent --new-session --cap-drop ALL \
  --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
  --proc /proc --dev /dev --tmpfs /tmp /bin/true"

# crun: a bundle with the same shape (user, mount, pid, net, ipc, uts namespaces; uid 1000 mapped
# to an unprivileged host uid; /usr read-only; no capabilities; no_new_privs).
mkdir -p "$WORK/bundle/rootfs"/{usr,proc,dev,tmp}
for l in bin lib lib64 sbin; do [ -L "/$l" ] && ln -s "$(readlink "/$l")" "$WORK/bundle/rootfs/$l"; done
cat > "$WORK/bundle/config.json" <<JSON
{"ociVersion":"1.0.2","root":{"path":"rootfs","readonly":true},"hostname":"bench",
 "process":{"terminal":false,"user":{"uid":1000,"gid":1000},"args":["/bin/true"],"env":["PATH=/usr/bin:/bin"],"cwd":"/",
  "capabilities":{"bounding":[],"effective":[],"inheritable":[],"permitted":[],"ambient":[]},"noNewPrivileges":true},
 "mounts":[{"destination":"/proc","type":"proc","source":"proc"},
  {"destination":"/dev","type":"tmpfs","source":"tmpfs","options":["nosuid","mode=755"]},
  {"destination":"/tmp","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec"]},
  {"destination":"/usr","type":"bind","source":"/usr","options":["rbind","ro","nosuid","nodev"]}],
 "linux":{"namespaces":[{"type":"user"},{"type":"mount"},{"type":"pid"},{"type":"network"},{"type":"ipc"},{"type":"uts"}],
  "uidMappings":[{"containerID":0,"hostID":1700000001,"size":1},{"containerID":1000,"hostID":1700000000,"size":1}],
  "gidMappings":[{"containerID":0,"hostID":1700000001,"size":1},{"containerID":1000,"hostID":1700000000,"size":1}]}}
JSON
# crun 1.8 refuses a hybrid cgroup layout with controllers in the v2 mount; run it in a private
# mount namespace without that mount (the host is untouched), as warrant's OCI backend does.
CRUN="crun --root $WORK/state --cgroup-manager=disabled run --bundle $WORK/bundle bench-\$\$"
if grep -q . /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
  CRUN="unshare -m sh -c 'umount -l /sys/fs/cgroup/unified; exec $CRUN'"
else
  CRUN="sh -c '$CRUN'"
fi

# Sanity: each command really runs.
/bin/true
"$WARRANT" exec --profile "$WORK/bench.toml" -- /bin/true
"$WARRANT" exec --profile "$WORK/bench-nocg.toml" -- /bin/true
eval "$BWRAP"
eval "$CRUN"
"$WARRANT" exec --profile "$WORK/bench.toml" --backend oci -- /bin/true

hyperfine -N --warmup 10 --runs "$RUNS" --export-json "$PWD/target/bench-exec.json" \
  -n bare '/bin/true' \
  -n warrant-startup "$WARRANT --version" \
  -n warrant "$WARRANT exec --profile $WORK/bench.toml -- /bin/true" \
  -n warrant-nocg "$WARRANT exec --profile $WORK/bench-nocg.toml -- /bin/true" \
  -n bwrap "$BWRAP" \
  -n crun "$CRUN" \
  -n warrant-oci "$WARRANT exec --profile $WORK/bench.toml --backend oci -- /bin/true"

python3 - "$PWD/target/bench-exec.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["bare"]["mean"]
over = {k: (v["mean"] - base) * 1000 for k, v in r.items()}
print()
print(f"{'command':<12} {'mean ms':>9} {'overhead ms':>12}")
for k, v in r.items():
    print(f"{k:<12} {v['mean']*1000:9.2f} {over[k]:12.2f}")
print()
print(f"warrant / bwrap overhead ratio: {over['warrant']/over['bwrap']:.2f}x (target <= 1.5x)")
print(f"warrant (cgroups off) / bwrap overhead ratio: {over['warrant-nocg']/over['bwrap']:.2f}x")
print(f"warrant / crun  overhead ratio: {over['warrant']/over['crun']:.2f}x")
print(f"warrant overhead {over['warrant']:.2f} ms (target < 10 ms)")
PY
