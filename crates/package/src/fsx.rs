//! Small fd-relative, no-follow file helpers over `rustix` (no `unsafe`).

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

/// Opens a directory beneath `dir` without following a symlink at `name`.
pub(crate) fn open_dir_at(dir: impl AsFd, name: &str) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Opens a directory by path (following symlinks in the path: the user named it).
pub(crate) fn open_dir(path: &std::path::Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Opens a regular file beneath `dir` for reading without following a symlink and without
/// blocking on a FIFO; fails unless it is a regular file.
pub(crate) fn open_file_at(dir: impl AsFd, name: &str) -> io::Result<(File, rustix::fs::Stat)> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(io::Error::other(format!("`{name}` is not a regular file")));
    }
    Ok((File::from(fd), stat))
}

/// `lstat` beneath `dir`.
pub(crate) fn lstat_at(dir: impl AsFd, name: &str) -> io::Result<rustix::fs::Stat> {
    Ok(rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?)
}

/// Lists a directory fd's entry names (without `.` and `..`), sorted.
pub(crate) fn list_dir(dir: impl AsFd) -> io::Result<Vec<Vec<u8>>> {
    let mut names = Vec::new();
    let mut reader = rustix::fs::Dir::read_from(dir)?;
    while let Some(entry) = reader.read() {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(name.to_vec());
        }
    }
    names.sort();
    Ok(names)
}

/// Removes `name` beneath `dir` recursively, never following symlinks.
pub(crate) fn remove_tree_at(dir: impl AsFd, name: &str) -> io::Result<()> {
    let dir = dir.as_fd();
    let stat = match lstat_at(dir, name) {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
        let sub = open_dir_at(dir, name)?;
        for child in list_dir(&sub)? {
            let child = String::from_utf8_lossy(&child).into_owned();
            remove_tree_at(&sub, &child)?;
        }
        rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)?;
    } else {
        rustix::fs::unlinkat(dir, name, AtFlags::empty())?;
    }
    Ok(())
}

/// Creates a directory beneath `dir` (no error if it already exists as a directory).
pub(crate) fn mkdir_at(dir: impl AsFd, name: &str, mode: u32) -> io::Result<()> {
    let dir = dir.as_fd();
    match rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(mode)) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::EXIST) => {
            let st = lstat_at(dir, name)?;
            if FileType::from_raw_mode(st.st_mode) == FileType::Directory {
                Ok(())
            } else {
                Err(io::Error::other(format!(
                    "`{name}` exists and is not a directory"
                )))
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// Creates a new file beneath `dir` (fails if anything exists there), writes `data`, sets `mode`,
/// and fsyncs it.
pub(crate) fn write_new_file_at(
    dir: impl AsFd,
    name: &str,
    data: &[u8],
    mode: u32,
) -> io::Result<()> {
    use std::io::Write;
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
    let mut file = File::from(fd);
    file.write_all(data)?;
    file.sync_all()?;
    Ok(())
}

/// Reads a whole regular file beneath `dir` (no-follow), at most `max` bytes.
pub(crate) fn read_file_at(dir: impl AsFd, name: &str, max: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let (file, _) = open_file_at(dir, name)?;
    let mut data = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut data)?;
    if data.len() as u64 > max {
        return Err(io::Error::other(format!(
            "`{name}` is larger than {max} bytes"
        )));
    }
    Ok(data)
}

/// Renames within or across directory fds.
pub(crate) fn rename_at(
    from_dir: impl AsFd,
    from: &str,
    to_dir: impl AsFd,
    to: &str,
    flags: rustix::fs::RenameFlags,
) -> io::Result<()> {
    Ok(rustix::fs::renameat_with(
        from_dir, from, to_dir, to, flags,
    )?)
}

/// fsyncs a directory fd.
pub(crate) fn sync_dir(dir: impl AsFd) -> io::Result<()> {
    Ok(rustix::fs::fsync(dir)?)
}
