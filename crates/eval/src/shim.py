# warrant eval evidence shim (generated; see docs/eval.md). Tamper-evident, not tamper-proof.
import fcntl, hashlib, json, os, secrets, shutil, subprocess, sys, time

NONCE = @NONCE@
LOG = @LOG@
EVDIR = @EVDIR@
REAL = @REAL@
PROJECT = @PROJECT@
PYC = @PYC@
MODE = @MODE@
NOARG = set("bBdEhiIOPqRsSuvVx?")


def pytest_args(args):
    """The arguments after `-m pytest`, or None when this is not a pytest run."""
    if MODE == "pytest":
        return args
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--" or a == "-" or not a.startswith("-") or a.startswith("--"):
            if a.startswith("--") and a != "--":
                i += 1
                continue
            return None
        j = 1
        while j < len(a):
            c = a[j]
            if c in NOARG:
                j += 1
                continue
            if c == "m":
                mod = a[j + 1:] if j + 1 < len(a) else (args[i + 1] if i + 1 < len(args) else "")
                if mod != "pytest":
                    return None
                return args[i + 1:] if j + 1 < len(a) else args[i + 2:]
            if c in "WX":
                if j + 1 == len(a):
                    i += 1
                break
            return None  # -c and anything unknown: not a pytest run
        i += 1
    return None


def digest(root):
    lines = []

    def walk(d, prefix, depth):
        if depth > 64:
            return
        try:
            entries = list(os.scandir(d))
        except OSError:
            return
        for e in entries:
            rel = e.name if not prefix else prefix + "/" + e.name
            if e.is_dir(follow_symlinks=False):
                if e.name not in ("__pycache__", ".git"):
                    walk(e.path, rel, depth + 1)
            elif e.name.endswith(".py"):
                if e.is_symlink():
                    h = hashlib.sha256(os.fsencode(os.readlink(e.path))).hexdigest()
                    kind = "l"
                elif e.is_file(follow_symlinks=False):
                    h = hashlib.sha256()
                    fd = os.open(e.path, os.O_RDONLY | os.O_NOFOLLOW)
                    with os.fdopen(fd, "rb") as f:
                        for chunk in iter(lambda: f.read(65536), b""):
                            h.update(chunk)
                    h = h.hexdigest()
                    kind = "f"
                else:
                    continue
                lines.append((rel.encode(), (rel + "\0" + kind + "\0" + h + "\n").encode()))

    walk(root, "", 0)
    lines.sort()
    total = hashlib.sha256()
    for _, line in lines:
        total.update(line)
    return total.hexdigest()


def log(record):
    record["nonce"] = NONCE
    fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "a") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")


def main():
    args = sys.argv[1:]
    rest = pytest_args(args)
    if rest is None:
        os.execv(REAL, [REAL] + args)
    fd = os.open(os.path.join(EVDIR, "counter"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "r+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        text = counter.read().strip()
        seq = (int(text) if text.isdigit() else 0) + 1
        counter.seek(0)
        counter.truncate()
        counter.write(str(seq))
        counter.flush()
        src = digest(PROJECT)
        log({"event": "start", "seq": seq, "attempt": seq, "digest": src, "argv": [MODE] + args,
             "cwd": os.getcwd(), "time": time.time()})
    name = secrets.token_hex(16) + ".xml"
    junit = os.path.join(EVDIR, "junit", name)
    # Fresh bytecode for project code: its mirror in the cache prefix is removed before each run,
    # and the project's own __pycache__ is never read (the prefix replaces it).
    shutil.rmtree(PYC + os.path.realpath(PROJECT), ignore_errors=True)
    env = dict(os.environ)
    env["WARRANT_EVAL_ATTEMPT"] = str(seq)
    cmd = [REAL, "-I", "-X", "pycache_prefix=" + PYC, "-m", "pytest"] + rest + ["--junitxml=" + junit]
    try:
        rc = subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        rc = 130
    jsha = None
    try:
        fd = os.open(junit, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            jsha = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        pass
    log({"event": "end", "seq": seq, "exit": rc, "junit": name, "junit_sha256": jsha, "time": time.time()})
    sys.exit(rc if 0 <= rc < 256 else 1)


main()
