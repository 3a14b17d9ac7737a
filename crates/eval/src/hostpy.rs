//! The host Python the shims and the re-run trust: a digest of what could run code in every
//! interpreter start or every pytest run (`*.pth`, `sitecustomize.py`, `usercustomize.py` in the
//! site directories, by content; the `pytest`/`_pytest` packages' files, by inode, size, mtime and
//! ctime), taken before and after each agent run.
//! A change is reported as tampering: an agent running as the harness's user can write there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::fsutil::{read_regular_nofollow, sha256_hex};

/// Site directories and package directories of one interpreter.
type Watched = (Vec<PathBuf>, Vec<PathBuf>);

/// Directories to watch for `python`: (site directories, package directories).
fn watched(python: &Path) -> Watched {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Watched>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(v) = cache.lock().expect("cache lock").get(python) {
        return v.clone();
    }
    // find_spec locates the packages without running them (importing pytest costs ~150 ms).
    let code = "import json, os, site, importlib.util as u\n\
                specs = [u.find_spec(n) for n in ('pytest', '_pytest')]\n\
                print(json.dumps([site.getsitepackages() + [site.getusersitepackages()], \
                [os.path.dirname(s.origin) for s in specs if s and s.origin]]))";
    let out = Command::new(python)
        .args(["-I", "-c", code])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let parsed: Watched = out
        .ok()
        .and_then(|o| serde_json::from_slice::<(Vec<String>, Vec<String>)>(&o.stdout).ok())
        .map(|(a, b)| {
            (
                a.into_iter().map(PathBuf::from).collect(),
                b.into_iter().map(PathBuf::from).collect(),
            )
        })
        .unwrap_or_default();
    cache
        .lock()
        .expect("cache lock")
        .insert(python.to_path_buf(), parsed.clone());
    parsed
}

/// Digest of the code the host interpreter would run at start-up or in pytest.
pub fn digest(python: &Path) -> String {
    let (sites, packages) = watched(python);
    let mut entries: Vec<(String, String)> = Vec::new();
    for dir in &sites {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if name.ends_with(".pth") || name == "sitecustomize.py" || name == "usercustomize.py" {
                entries.push((e.path().display().to_string(), file_hash(&e.path())));
            }
        }
    }
    for dir in &packages {
        walk(dir, &mut entries, 0);
    }
    entries.sort();
    let mut h = Sha256::new();
    for (p, d) in &entries {
        h.update(p.as_bytes());
        h.update(b"\0");
        h.update(d.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

fn file_hash(p: &Path) -> String {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => format!(
            "link:{}",
            std::fs::read_link(p)
                .map(|t| t.display().to_string())
                .unwrap_or_default()
        ),
        Ok(_) => read_regular_nofollow(p, 64 * 1024 * 1024)
            .map(|b| sha256_hex(&b))
            .unwrap_or_else(|e| format!("unreadable:{e}")),
        Err(e) => format!("missing:{e}"),
    }
}

/// Inode, size, mtime and ctime (which no unprivileged call can set back): cheap, and any write,
/// rename or replacement changes it.
fn stat_stamp(p: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(p) {
        Ok(m) => format!(
            "{}:{}:{}:{}.{}:{}.{}",
            m.dev(),
            m.ino(),
            m.size(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec()
        ),
        Err(e) => format!("missing:{e}"),
    }
}

fn walk(dir: &Path, out: &mut Vec<(String, String)>, depth: usize) {
    if depth > 8 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let Ok(ft) = e.file_type() else { continue };
        let name = e.file_name().to_string_lossy().to_string();
        if ft.is_dir() {
            if name != "__pycache__" {
                walk(&e.path(), out, depth + 1);
            }
        } else if name.ends_with(".py") || ft.is_symlink() {
            out.push((e.path().display().to_string(), stat_stamp(&e.path())));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_pth_or_a_changed_pytest_file_changes_the_digest() {
        let d = tempfile::tempdir().unwrap();
        let site = d.path().join("site");
        let pkg = d.path().join("_pytest");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::create_dir_all(pkg.join("sub")).unwrap();
        std::fs::write(pkg.join("sub/runner.py"), "x = 1\n").unwrap();
        // A stand-in interpreter that reports these directories.
        let fake = d.path().join("python");
        std::fs::write(
            &fake,
            format!(
                "#!/bin/sh\necho '[[\"{}\"], [\"{}\"]]'\n",
                site.display(),
                pkg.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let before = digest(&fake);
        assert_eq!(before, digest(&fake));
        std::fs::write(site.join("evil.pth"), "import os\n").unwrap();
        let with_pth = digest(&fake);
        assert_ne!(before, with_pth);
        std::fs::write(pkg.join("sub/runner.py"), "x = 2\n").unwrap();
        assert_ne!(with_pth, digest(&fake));
        std::fs::write(site.join("unrelated.txt"), "x").unwrap();
        let now = digest(&fake);
        assert_eq!(now, digest(&fake));
    }
}
