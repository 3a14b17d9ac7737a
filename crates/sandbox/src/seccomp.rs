//! The seccomp filters: a deny list compiled with `seccompiler`, plus a small fixed filter that
//! sends `clone3` to ENOSYS (its flags live in memory a filter cannot read, so libc falls back to
//! `clone`, whose namespace flags are checked) and refuses x32 system call numbers.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use crate::profile::SeccompLevel;

/// Namespace flags that `clone` may not carry inside the sandbox.
pub(crate) const NS_FLAGS: &[u64] = &[
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWCGROUP as u64,
    0x80, // CLONE_NEWTIME
];

/// System calls refused (EPERM) at the default level.
const DENY_DEFAULT: &[(&str, i64)] = &[
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("open_tree", libc::SYS_open_tree),
    ("move_mount", libc::SYS_move_mount),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("pidfd_getfd", libc::SYS_pidfd_getfd),
    ("kcmp", libc::SYS_kcmp),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("bpf", libc::SYS_bpf),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("reboot", libc::SYS_reboot),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("acct", libc::SYS_acct),
    ("quotactl", libc::SYS_quotactl),
    ("syslog", libc::SYS_syslog),
    ("lookup_dcookie", libc::SYS_lookup_dcookie),
    ("iopl", libc::SYS_iopl),
    ("ioperm", libc::SYS_ioperm),
    ("settimeofday", libc::SYS_settimeofday),
    ("clock_settime", libc::SYS_clock_settime),
    ("clock_adjtime", libc::SYS_clock_adjtime),
    ("adjtimex", libc::SYS_adjtimex),
    ("fanotify_init", libc::SYS_fanotify_init),
];

/// Additionally refused at the strict level.
const DENY_STRICT: &[(&str, i64)] = &[
    ("perf_event_open", libc::SYS_perf_event_open),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("personality", libc::SYS_personality),
    ("vhangup", libc::SYS_vhangup),
    ("mbind", libc::SYS_mbind),
    ("migrate_pages", libc::SYS_migrate_pages),
    ("move_pages", libc::SYS_move_pages),
    ("set_mempolicy", libc::SYS_set_mempolicy),
];

pub(crate) const TIOCSTI: u64 = 0x5412;
pub(crate) const TIOCLINUX: u64 = 0x541C;

/// Names of everything the filter refuses at `level`, for reports and docs.
pub fn denied_names(level: SeccompLevel) -> Vec<&'static str> {
    let mut v: Vec<&str> = match level {
        SeccompLevel::Off => return Vec::new(),
        SeccompLevel::Default => DENY_DEFAULT.iter().map(|d| d.0).collect(),
        SeccompLevel::Strict => DENY_DEFAULT
            .iter()
            .chain(DENY_STRICT)
            .map(|d| d.0)
            .collect(),
    };
    v.extend([
        "clone with namespace flags",
        "clone3 (ENOSYS)",
        "ioctl TIOCSTI",
        "ioctl TIOCLINUX",
        "socket AF_PACKET",
        "socket SOCK_RAW",
        "x32 system calls",
    ]);
    v
}

/// Plain system-call names refused (EPERM) at `level`, without the argument-filtered ones.
pub fn denied_syscalls(level: SeccompLevel) -> Vec<&'static str> {
    match level {
        SeccompLevel::Off => Vec::new(),
        SeccompLevel::Default => DENY_DEFAULT.iter().map(|d| d.0).collect(),
        SeccompLevel::Strict => DENY_DEFAULT
            .iter()
            .chain(DENY_STRICT)
            .map(|d| d.0)
            .collect(),
    }
}

fn cond(
    arg: u8,
    len: SeccompCmpArgLen,
    op: SeccompCmpOp,
    value: u64,
) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, len, op, value).map_err(|e| e.to_string())
}

fn rule(conds: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conds).map_err(|e| e.to_string())
}

/// Compiles the filters for `level`, in install order. Empty for `off`.
pub fn build(level: SeccompLevel) -> Result<Vec<BpfProgram>, String> {
    let list: Vec<&(&str, i64)> = match level {
        SeccompLevel::Off => return Ok(Vec::new()),
        SeccompLevel::Default => DENY_DEFAULT.iter().collect(),
        SeccompLevel::Strict => DENY_DEFAULT.iter().chain(DENY_STRICT).collect(),
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for (_, nr) in list {
        rules.insert(*nr, Vec::new());
    }
    use SeccompCmpArgLen::{Dword, Qword};
    use SeccompCmpOp::{Eq, MaskedEq};
    let clone_rules = NS_FLAGS
        .iter()
        .map(|f| rule(vec![cond(0, Qword, MaskedEq(*f), *f)?]))
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_clone, clone_rules);
    rules.insert(
        libc::SYS_ioctl,
        vec![
            rule(vec![cond(1, Dword, Eq, TIOCSTI)?])?,
            rule(vec![cond(1, Dword, Eq, TIOCLINUX)?])?,
        ],
    );
    rules.insert(
        libc::SYS_socket,
        vec![
            rule(vec![cond(0, Dword, Eq, libc::AF_PACKET as u64)?])?,
            rule(vec![cond(1, Dword, MaskedEq(0xf), libc::SOCK_RAW as u64)?])?,
        ],
    );
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        TargetArch::x86_64,
    )
    .map_err(|e| e.to_string())?;
    let deny: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    Ok(vec![deny, clone3_and_x32()])
}

/// A fixed filter: wrong architecture → kill; x32 numbers → EPERM; clone3 → ENOSYS; else allow.
fn clone3_and_x32() -> BpfProgram {
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    const X32_BIT: u32 = 0x4000_0000;
    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_KILL: u32 = 0x8000_0000; // SECCOMP_RET_KILL_PROCESS
    const RET_ERRNO: u32 = 0x0005_0000;
    let i = |code, k, jt, jf| sock_filter { code, jt, jf, k };
    vec![
        i(LD_W_ABS, 4, 0, 0),              // A = arch
        i(JEQ_K, AUDIT_ARCH_X86_64, 1, 0), // arch ok → skip the kill
        i(RET_K, RET_KILL, 0, 0),
        i(LD_W_ABS, 0, 0, 0),    // A = nr
        i(JGE_K, X32_BIT, 0, 1), // x32 → EPERM
        i(RET_K, RET_ERRNO | libc::EPERM as u32, 0, 0),
        i(JEQ_K, libc::SYS_clone3 as u32, 0, 1), // clone3 → ENOSYS
        i(RET_K, RET_ERRNO | libc::ENOSYS as u32, 0, 0),
        i(RET_K, RET_ALLOW, 0, 0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_compile_for_every_level() {
        assert!(build(SeccompLevel::Off).unwrap().is_empty());
        assert_eq!(build(SeccompLevel::Default).unwrap().len(), 2);
        let strict = build(SeccompLevel::Strict).unwrap();
        assert!(strict[0].len() > build(SeccompLevel::Default).unwrap()[0].len());
        assert!(denied_names(SeccompLevel::Default).contains(&"io_uring_setup"));
    }
}
