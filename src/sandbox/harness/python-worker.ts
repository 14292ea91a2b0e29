/**
 * Part of the Python harness (see python.ts): the worker, the process that runs the program. It answers the
 * judge's requests with plain data and never holds an expected output, the test code or the nonce.
 */
export const PYTHON_WORKER = String.raw`# ---- the worker: the program's own process (untrusted once the program runs) ----
# It never holds a test's expected output, the test code or the report nonce: the judge forks it before it reads
# the task, or starts it with execve. It answers the judge's requests (load the program, call a function, run a
# stdin case) with plain data; the judge decides what passes.


class _Sink(io.TextIOBase):
    """A text stream that keeps at most "cap" characters and drops the rest."""

    def __init__(self, cap):
        self.size, self.cap = 0, cap

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str")
        self.size += len(s)
        return len(s)


def install_seccomp(b64):
    """Installs a classic-BPF seccomp filter (where no outer sandbox did: sandbox none, SandboxFusion)."""
    import ctypes

    prog = base64.b64decode(b64)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    fprog = SockFprog(len(prog) // 8, prog)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(22, 2, ctypes.addressof(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")


def set_dumpable(flag):
    """prctl(PR_SET_DUMPABLE): at 0, this process's /proc/<pid>/mem, fd, environ, maps and ptrace need
    CAP_SYS_PTRACE, which no process in the sandbox has (the judge sets 0; a forked worker sets 1 again)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(4, flag, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_DUMPABLE")


def _harden(init):
    if init.get("bpf"):
        try:
            install_seccomp(init["bpf"])
        except OSError:
            if not init.get("bpfOptional"):
                raise
    if init.get("dropRoot") and os.geteuid() == 0:  # SandboxFusion runs code as root: the program must not be
        import tempfile

        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        os.chdir(tempfile.mkdtemp())  # a working directory the program may write


def _status(e):
    if isinstance(e, Deadline):
        return "timeout"
    if isinstance(e, MemoryError):
        return "memory_limit"
    return "runtime_error"


def _message(e):
    if isinstance(e, Deadline):
        return None
    if isinstance(e, SystemExit):
        return "SystemExit(%r)" % (e.code,)
    try:
        return "%s: %s" % (type(e).__name__, str(e)[:300])
    except BaseException:
        return type(e).__name__


def start_failed(e, ch=None):
    """A worker that cannot get ready (before the judge has sent it the program): says why on stderr and, when its
    channel works, to the judge ("unarmed"), then exits 121. Never called once the program may have run."""
    why = _message(e) or type(e).__name__
    try:
        os.write(2, ("rewardkit harness: the worker could not start: %s\n" % why).encode("utf-8", "replace"))
    except BaseException:
        pass
    try:
        (ch or Channel(3, 4)).send({"op": "unarmed", "m": why})
    except BaseException:
        pass
    os._exit(121)


def worker_main(rfd, wfd):
    # Start-up handshake: "prepare" (the hardening, no program) -> "armed". Everything before "armed" is harness
    # code on the host's terms; the judge sends the program only after it has read "armed", so a worker that never
    # arms failed for the host, and nothing the program does can take back an "armed" already in the judge's pipe.
    ch = Channel(rfd, wfd)
    try:
        prep = ch.recv()
        if prep is None:
            os._exit(0)
        _harden(prep)
    except BaseException as e:
        start_failed(e, ch)
    ch.send({"op": "armed"})
    init = ch.recv()
    if init is None:
        os._exit(0)
    if init["op"] == "exec":  # become another interpreter (JavaScript), on the same two descriptors; it arms again
        ch.send({"op": "exec"})  # the judge sends the next message only now, so none is left in this buffer
        try:
            os.execv(init["argv"][0], init["argv"])
        except BaseException as e:
            start_failed(e, ch)
    if init.get("mode") == "stdio":
        serve_stdio(ch, init)
    else:
        serve_calls(ch, init)
    os._exit(0)


class _Runner:
    def __init__(self, ch, init):
        self.ch = ch
        self.test_s = init["testMs"] / 1000.0
        self.handles, self.objects = {}, {}
        self.sink = _Sink(init.get("outputLimit", 1 << 20))
        sys.stdout = self.sink
        sys.stdin = io.StringIO("")
        signal.signal(signal.SIGPROF, _alarm)

    def guarded(self, fn, seconds=None):
        """(True, value) or (False, exception) of fn() under the per-test limit of CPU time (ITIMER_PROF: this
        process's user + system time). The judge watches too: it kills a worker stuck in C code past the limit."""
        signal.setitimer(signal.ITIMER_PROF, seconds if seconds is not None else self.test_s)
        try:
            return True, fn()
        except BaseException as e:  # noqa: the program may raise anything
            return False, e
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)

    def value(self, v):
        """A reply holding a value, or a failure when the value has no wire form."""
        try:
            w, objs = to_wire(v, self.objects)
        except NotWire as e:
            return {"s": "fail", "m": "returned %s, which has no literal form (only literal values are compared)" % e}
        except BaseException as e:
            return {"s": "runtime_error", "m": _message(e)}
        return {"v": w, "objs": objs} if objs else {"v": w}

    def failure(self, e):
        return {"s": _status(e), "m": _message(e)}


def serve_calls(ch, init):
    r = _Runner(ch, init)
    ns = {"__name__": "__rk_solution__", "__builtins__": builtins}
    try:
        code = compile(init["program"], "solution.py", "exec")
    except (SyntaxError, ValueError) as e:
        ch.send({"op": "loaded", "s": "compile_error", "m": "%s: %s" % (type(e).__name__, e)})
        return
    if init.get("prelude"):
        exec(compile(init["prelude"], "prelude.py", "exec"), ns)
    ok, e = r.guarded(lambda: exec(code, ns))
    if not ok:
        st = _status(e)
        ch.send({"op": "loaded", "s": st, "m": _message(e) if st != "timeout" else "time limit %.3gs while loading" % r.test_s})
        return
    entry = init.get("entryPoint")
    ch.send({"op": "loaded", "entry": callable(ns.get(entry)) if entry else None})

    def target(t):
        if "h" in t:
            obj = r.handles[t["h"]]
            return getattr(obj, t["attr"]) if "attr" in t else obj
        return ns[t["name"]]

    def args_of(msg):
        enc = msg.get("enc", "wire")
        if enc == "python":
            a = literal(msg["args"])
            return list(a) if isinstance(a, (list, tuple)) else [a], {}
        if enc == "json":
            return [decode_reference(x) for x in msg["args"]], {}
        hv = lambda h: r.handles[h]
        return [from_wire(x, handle=hv) for x in msg["args"]], {k: from_wire(x, handle=hv) for k, x in msg.get("kwargs", {}).items()}

    while True:
        msg = ch.recv()
        if msg is None:
            return
        op = msg["op"]
        if op == "cases":  # call the entry point on every input, one reply per input, in order
            fn = ns.get(msg["fn"])
            enc = msg.get("enc", "json")
            if msg.get("truthy"):  # the test is the return value's truth value
                fn = (lambda f: lambda *a: bool(f(*a)))(fn)
            for i, inp in enumerate(msg["cases"]):
                try:
                    args, _ = args_of({"enc": enc, "args": inp})
                except BaseException as e:
                    ch.send({"i": i, "s": "sandbox_error", "m": "bad case input: %s" % _message(e)})
                    continue
                ok, v = r.guarded(lambda: fn(*args))
                rep = r.value(v) if ok else r.failure(v)
                rep["i"] = i
                ch.send(rep)
        elif op in ("call", "new", "getattr"):
            rid = msg["id"]
            try:
                t = target(msg["target"])
                args, kwargs = args_of(msg) if op != "getattr" else ((), {})
            except BaseException as e:
                ch.send({"id": rid, "err": "NameError" if isinstance(e, KeyError) else type(e).__name__, "m": _message(e)})
                continue
            seconds = max(0.001, min(r.test_s, msg.get("ms", r.test_s * 1000) / 1000.0))
            if op == "getattr":
                ok, v = r.guarded(lambda: getattr(t, msg["attr"]), seconds)
                if ok and callable(v):
                    ch.send({"id": rid, "callable": True})
                    continue
            else:
                ok, v = r.guarded(lambda: t(*args, **kwargs), seconds)
            if not ok:
                if isinstance(v, (Deadline, MemoryError)):
                    rep = r.failure(v)
                else:
                    rep = {"err": type(v).__name__, "m": _message(v)}
            elif op == "new":
                h = len(r.handles) + 1
                r.handles[h] = v
                r.objects[id(v)] = h
                rep = {"h": h}
            else:
                rep = r.value(v)
                echo = msg.get("echo")
                if echo and "v" in rep:  # arguments the function may have changed in place
                    try:
                        rep["echo"] = [[j, to_wire(args[j])[0]] for j in echo]
                    except BaseException:
                        pass
            rep["id"] = rid
            ch.send(rep)
        elif op == "describe":  # what the program's global names are
            kinds = {}
            for name in msg["names"]:
                v = ns.get(name, ns)
                if v is ns:
                    kinds[name] = {"k": "missing"}
                elif isinstance(v, type):
                    kinds[name] = {"k": "class"}
                elif callable(v):
                    kinds[name] = {"k": "function"}
                else:
                    rep = r.value(v)
                    kinds[name] = {"k": "value", "v": rep["v"], "objs": rep.get("objs", [])} if "v" in rep else {"k": "opaque"}
            ch.send({"id": msg.get("id"), "kinds": kinds})


def _case_process(code, argv, data, test_s, cap):
    """Runs one stdin case in a fresh child (a fork of this worker, or node): its stdout, exit and stderr tail."""
    try:
        fd_in = os.memfd_create("stdin")
    except (AttributeError, OSError):
        import tempfile

        fd_in, path = tempfile.mkstemp()
        os.unlink(path)
    raw = data.encode("utf-8", "surrogateescape")
    view = memoryview(raw)
    while view:
        view = view[os.write(fd_in, view):]
    os.lseek(fd_in, 0, os.SEEK_SET)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            os.dup2(fd_in, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.closerange(3, 4096)
            signal.signal(signal.SIGPROF, signal.SIG_DFL)
            if argv is not None:
                os.execv(argv[0], argv)
            sys.stdin = open(0, "r", encoding="utf-8", errors="surrogateescape", closefd=False)
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
            sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
            sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
            main = types.ModuleType("__main__")
            main.__dict__["__builtins__"] = builtins
            main.__dict__["__file__"] = "solution.py"
            sys.modules["__main__"] = main
            sys.argv = ["solution.py"]
            status = 0
            try:
                exec(code, main.__dict__)
            except SystemExit as e:
                if e.code is None:
                    status = 0
                elif isinstance(e.code, int):
                    status = e.code & 0xFF
                else:
                    print(e.code, file=sys.stderr)
                    status = 1
            except BaseException:
                import traceback

                traceback.print_exc()
                status = 1
            try:
                sys.stdout.flush()
            except BaseException:
                pass
            try:
                sys.stderr.flush()
            except BaseException:
                pass
            os._exit(status)
        finally:
            os._exit(120)
    for fd in (fd_in, out_w, err_w):
        os.close(fd)
    out, err, over, timed_out, exited = bytearray(), bytearray(), False, False, None
    # The case's limit is its process's CPU time; the wall-clock backstop catches one that sleeps or blocks.
    deadline = time.monotonic() + wall_limit(test_s)
    open_fds = [out_r, err_r]
    while open_fds:
        if exited is None:
            wpid, st = os.waitpid(pid, os.WNOHANG)
            if wpid:
                exited = st
                deadline = min(deadline, time.monotonic() + 0.05)  # drain what is already written, then stop
            else:
                used = cpu_of(pid)
                if used is not None and used > test_s:
                    timed_out = True
                    break
        left = deadline - time.monotonic()
        if left <= 0:
            if exited is None:
                timed_out = True
            break
        ready = select.select(open_fds, [], [], min(left, 0.05 if exited is None else left))[0]
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.remove(fd)
            elif fd == out_r:
                out += chunk
                if len(out) > cap:
                    over = True
                    open_fds = []
                    break
            else:
                err = (err + chunk)[-4096:]
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    if exited is None:
        exited = os.waitpid(pid, 0)[1]
    os.close(out_r)
    os.close(err_r)
    rep = {"out": bytes(out[:cap]).decode("utf-8", "replace"), "err": bytes(err).decode("utf-8", "replace")[-1000:]}
    if over:
        rep["over"] = True
    if timed_out:
        rep["timeout"] = True
    elif os.WIFSIGNALED(exited):
        rep["sig"] = os.WTERMSIG(exited)
    else:
        rep["code"] = os.WEXITSTATUS(exited)
    return rep


def serve_stdio(ch, init):
    """One fresh process per stdin case: a fork of this worker (Python) or node (JavaScript)."""
    test_s = init["testMs"] / 1000.0
    cap = init.get("outputLimit", 1 << 20)
    code, argv = None, None
    if init["language"] == "python":
        try:
            code = compile(init["program"], "solution.py", "exec")
        except (SyntaxError, ValueError) as e:
            ch.send({"op": "loaded", "s": "compile_error", "m": "%s: %s" % (type(e).__name__, e)})
            return
    else:
        path = os.path.join(os.getcwd(), "solution.js")
        with open(path, "w", encoding="utf-8") as f:
            f.write(init["program"])
        argv = init["node"] + [path]
        check = _case_process(None, init["node"] + ["--check", path], "", max(test_s, 10.0), 1 << 16)
        if check.get("code", 1) != 0 and "SyntaxError" in check.get("err", ""):
            ch.send({"op": "loaded", "s": "compile_error", "m": check["err"][-300:]})
            return
    ch.send({"op": "loaded"})
    while True:
        msg = ch.recv()
        if msg is None:
            return
        for i, data in enumerate(msg["cases"]):
            rep = _case_process(code, argv, data, test_s, cap)
            rep["i"] = i
            ch.send(rep)
`;
