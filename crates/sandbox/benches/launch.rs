//! Launch overhead, side by side in one criterion run: bare `/bin/true`, the process backend
//! through the library (every control on, with and without cgroups), `bwrap` with comparable
//! isolation, and `crun` on an equivalent bundle. (`scripts/bench-exec.sh` measures the whole
//! `warrant exec` command, audit record included, with hyperfine.)
//!
//! The supervisor forks: criterion's measuring thread is the only one running during the
//! measurement, which is what `exec` requires.
#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]

use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use warrant_sandbox::{Backend, OutputSink, Profile};

const PROFILE: &str = r#"
version = 1
name = "bench"
cwd = "/tmp"
[filesystem]
read_only = ["/usr"]
[env]
set = { PATH = "/usr/bin:/bin" }
"#;

fn bwrap() -> Command {
    let mut c = Command::new("bwrap");
    c.args([
        "--unshare-all",
        "--uid",
        "1000",
        "--gid",
        "1000",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/bin",
        "/bin",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "/bin/true",
    ]);
    c
}

fn crun_bundle(dir: &Path) {
    let rootfs = dir.join("rootfs");
    for d in ["usr", "proc", "dev", "tmp"] {
        std::fs::create_dir_all(rootfs.join(d)).unwrap();
    }
    for l in ["bin", "lib", "lib64", "sbin"] {
        if let Ok(t) = std::fs::read_link(format!("/{l}")) {
            let _ = std::os::unix::fs::symlink(t, rootfs.join(l));
        }
    }
    let config = serde_json::json!({
        "ociVersion": "1.0.2",
        "root": {"path": "rootfs", "readonly": true},
        "hostname": "bench",
        "process": {"terminal": false, "user": {"uid": 1000, "gid": 1000}, "args": ["/bin/true"],
            "env": ["PATH=/usr/bin:/bin"], "cwd": "/",
            "capabilities": {"bounding": [], "effective": [], "inheritable": [], "permitted": [], "ambient": []},
            "noNewPrivileges": true},
        "mounts": [
            {"destination": "/proc", "type": "proc", "source": "proc"},
            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
            {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "noexec"]},
            {"destination": "/usr", "type": "bind", "source": "/usr", "options": ["rbind", "ro", "nosuid", "nodev"]}
        ],
        "linux": {
            "namespaces": [{"type": "user"}, {"type": "mount"}, {"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"}],
            "uidMappings": [{"containerID": 0, "hostID": 1700000001u32, "size": 1}, {"containerID": 1000, "hostID": 1700000000u32, "size": 1}],
            "gidMappings": [{"containerID": 0, "hostID": 1700000001u32, "size": 1}, {"containerID": 1000, "hostID": 1700000000u32, "size": 1}]
        }
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
}

fn crun(dir: &Path, n: u64) -> Command {
    // crun 1.8 refuses a hybrid cgroup layout; run it without the v2 mount in a private mount
    // namespace, as warrant's OCI backend does.
    let inner = format!(
        "crun --root {0}/state --cgroup-manager=disabled run --bundle {0} bench-{n}",
        dir.display()
    );
    let hybrid = std::fs::read_to_string("/sys/fs/cgroup/unified/cgroup.controllers")
        .map(|c| !c.trim().is_empty())
        .unwrap_or(false);
    let mut c = Command::new("unshare");
    if hybrid {
        c.args([
            "-m",
            "sh",
            "-c",
            &format!("umount -l /sys/fs/cgroup/unified; exec {inner}"),
        ]);
    } else {
        c.args(["-m", "sh", "-c", &format!("exec {inner}")]);
    }
    c
}

fn run(mut c: Command) {
    let st = c
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "{c:?} failed: {st}");
}

fn launch(c: &mut Criterion) {
    let with_cg = Profile::from_toml(PROFILE, "bench").unwrap();
    let mut no_cg = with_cg.clone();
    no_cg.limits.cgroup = warrant_sandbox::profile::CgroupMode::Off;
    let argv = vec!["/bin/true".to_string()];
    let ws = Path::new("/tmp");
    let exec = |p: &Profile| {
        let (mut o, mut e) = (std::io::sink(), std::io::sink());
        let mut sinks = OutputSink::new(&mut o, &mut e, 1 << 20);
        let r = warrant_sandbox::exec(Backend::Process, p, &argv, ws, &mut sinks).unwrap();
        assert_eq!(r.exit_code, 0);
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    crun_bundle(dir.path());
    let mut n = 0u64;

    let mut g = c.benchmark_group("launch");
    g.sample_size(50);
    g.bench_function("bare", |b| b.iter(|| run(Command::new("/bin/true"))));
    g.bench_function("warrant-process", |b| b.iter(|| exec(&with_cg)));
    g.bench_function("warrant-process-no-cgroup", |b| b.iter(|| exec(&no_cg)));
    g.bench_function("bwrap", |b| b.iter(|| run(bwrap())));
    g.bench_function("crun", |b| {
        b.iter(|| {
            n += 1;
            run(crun(dir.path(), n))
        })
    });
    g.finish();
}

criterion_group!(benches, launch);
criterion_main!(benches);
