/**
 * Part of the Python harness (see python.ts): the zygote, a pre-started judge per pool slot (`sandbox: bwrap`,
 * Python). It runs as PID 1 of a long-lived bubblewrap sandbox, never runs a program and never reads a task; per
 * rollout it forks the rollout's judge into a new PID namespace, where the judge gives itself fresh mount, IPC,
 * network and UTS namespaces and tmpfs mounts, drops every privilege and loads the seccomp filter before the worker
 * exists.
 * The design and its security argument: docs/code.md, "The zygote".
 */
export const PYTHON_ZYGOTE = String.raw`# ---- the zygote: a pre-started judge per pool slot (never runs untrusted code) ----
# Host protocol. fd 0: commands, one JSON line each ({"op": "hello", "bpf": ...} once, then {"op": "run", "limits":
# ...} per rollout). fd 1: "rk-zygote-ready", then per rollout the judge's own lines ("rk-nonce <hex>", then its
# nonce-prefixed report) and last "rk-zygote-end {"st": <wait status>, "token": <hex>}". fd 2: the rollout's stderr
# (the judge's and the worker's), ended by "rk-stderr-end <token>", the token drawn after the rollout ended, so
# that no process of the rollout could write it. fd 3: the tasks, each an 8-byte little-endian length and JSON,
# read by the rollout's judge only (never by the zygote: no task is ever in a process that later forks).

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x4000000, 0x8000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAP_AMBIENT = 24, 38, 22, 47


class _Kernel:
    """The system calls a rollout's set-up makes, through one ctypes handle loaded in the zygote."""

    def __init__(self, bpf_b64):
        import ctypes

        self.ct = ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        u = ctypes.c_ulong
        self.unshare_ = libc.unshare
        self.unshare_.argtypes = [ctypes.c_int]
        self.setns_ = libc.setns
        self.setns_.argtypes = [ctypes.c_int, ctypes.c_int]
        self.mount_ = libc.mount
        self.mount_.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, u, ctypes.c_char_p]
        self.prctl_ = libc.prctl
        self.prctl_.argtypes = [ctypes.c_int, u, u, u, u]
        self.capset_ = libc.capset
        self.capset_.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.prog = base64.b64decode(bpf_b64)

        class SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

        self.fprog = SockFprog(len(self.prog) // 8, self.prog)
        self.cap_header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
        self.cap_data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: all zero (two 32-bit words each)

    def ok(self, r, what):
        if r != 0:
            e = self.ct.get_errno()
            raise OSError(e, "%s: %s" % (what, os.strerror(e)))

    def unshare(self, flags):
        self.ok(self.unshare_(flags), "unshare")

    def setns(self, fd, flags):
        self.ok(self.setns_(fd, flags), "setns")

    def mount(self, src, target, fstype, flags, data=None):
        self.ok(self.mount_(src, target, fstype, flags, data), "mount %s" % target.decode())

    def prctl(self, op, a=0, b=0):
        self.ok(self.prctl_(op, a, b, 0, 0), "prctl %d" % op)

    def drop_privileges(self):
        """No capability left in any set, no new privileges, the sandbox's seccomp filter: from here on this process
        and everything it starts is as unprivileged as a process bubblewrap started with --cap-drop ALL --seccomp."""
        for cap in range(64):
            if self.prctl_(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                break  # EINVAL past the kernel's last capability
        self.prctl(PR_CAP_AMBIENT, 4)  # PR_CAP_AMBIENT_CLEAR_ALL
        self.ok(self.capset_(self.cap_header, self.cap_data), "capset")
        self.prctl(PR_SET_NO_NEW_PRIVS, 1)
        self.prctl(PR_SET_SECCOMP, 2, self.ct.addressof(self.fprog))  # SECCOMP_MODE_FILTER


def _write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def _rollout_judge(k, lim):
    """The rollout's judge, PID 1 of the rollout's own PID namespace: its own mount, IPC, network (no interface up:
    no network at all) and UTS namespaces, fresh tmpfs on /tmp, /sandbox and /dev/shm, a /proc of its PID
    namespace, the limits, every privilege dropped and the seccomp filter loaded; then the judge as in a fresh
    sandbox. No code of the program runs before judge_main forks the worker. Everything of the rollout dies with
    this process: its PID namespace (every process), its mount and IPC namespaces (the tmpfs, System V objects)."""
    import resource

    os.dup2(3, 0)  # the task pipe becomes stdin; the command pipe is closed here
    os.closerange(3, 4096)  # stdin, stdout (the report) and stderr only
    k.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS)
    k.mount(None, b"/", None, MS_REC | MS_PRIVATE)
    for path, size in ((b"/tmp", lim["tmp"]), (b"/sandbox", lim["tmp"]), (b"/dev/shm", lim["shm"])):
        k.mount(b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=%d,mode=1777" % size)
    k.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for p in (b"/proc/sys", b"/proc/sysrq-trigger", b"/proc/irq", b"/proc/bus"):  # read-only, as bubblewrap's --proc
        if os.path.exists(p):
            k.mount(p, p, None, MS_BIND | MS_REC)
            k.mount(p, p, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.chdir("/sandbox")
    for r, v in ((resource.RLIMIT_AS, lim["as"]), (resource.RLIMIT_CPU, lim["cpu"]), (resource.RLIMIT_NPROC, lim["nproc"]),
                 (resource.RLIMIT_FSIZE, lim["fsize"]), (resource.RLIMIT_NOFILE, lim["nofile"]), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(r, (v, v))
    k.drop_privileges()
    set_dumpable(0)
    judge_main(rollout=True)


def _warm():
    """Imports and first calls that every rollout would otherwise pay for (the forks inherit them)."""
    ast.parse("def check(candidate):\n    assert candidate(1) == 1\n")
    base64.b64decode(b"")
    types.SimpleNamespace
    json.loads(json.dumps({"a": [1, 2.5, None]}))
    import ctypes, resource  # noqa: F401 (the rollout's set-up)
    import typing, re, itertools, functools, heapq, bisect, string  # noqa: F401 (what most programs import)
    import gc

    gc.collect()
    gc.freeze()  # the collector of a fork never walks (and so never copies) the pages of what is here already


def _serve(k, ch):
    """The zygote proper: PID 1 of a PID namespace it owns (so that it may reset the namespace its next child is
    born in), one rollout at a time."""
    own = os.open("/proc/self/ns/pid_for_children", os.O_RDONLY)
    _write_all(1, b"rk-zygote-ready\n")
    while True:
        cmd = ch.recv()
        if cmd is None:
            os._exit(0)
        k.setns(own, CLONE_NEWPID)  # children in this namespace again, then in a new one
        k.unshare(CLONE_NEWPID)
        pid = os.fork()
        if pid == 0:
            try:
                _rollout_judge(k, cmd["limits"])
            except BaseException as e:
                try:
                    os.write(2, ("rewardkit zygote: the judge could not start: %s: %s\n" % (type(e).__name__, e)).encode("utf-8", "replace"))
                except BaseException:
                    pass
            os._exit(120)
        st = None
        while True:
            try:
                got, s = os.waitpid(-1, 0)  # PID 1: reaps whatever ends
            except ChildProcessError:
                break
            if got == pid:
                st = s
                break
        token = os.urandom(8).hex()  # drawn now: no process of the rollout is left to have seen it
        _write_all(2, ("\nrk-stderr-end %s\n" % token).encode("ascii"))
        _write_all(1, ("\nrk-zygote-end " + json.dumps({"st": st, "token": token}) + "\n").encode("ascii"))


def zygote_main():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_dumpable(0)
    ch = Channel(0, 1)
    hello = ch.recv()
    if not isinstance(hello, dict) or hello.get("op") != "hello":
        os._exit(2)
    k = _Kernel(hello["bpf"])
    _warm()
    k.unshare(CLONE_NEWPID)
    pid = os.fork()
    if pid == 0:
        try:
            _serve(k, ch)
        finally:
            os._exit(1)
    while True:  # PID 1 of the slot's sandbox: ends with the zygote proper
        try:
            got, st = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(1)
        if got == pid:
            os._exit(os.WEXITSTATUS(st) if os.WIFEXITED(st) else 1)
`;
