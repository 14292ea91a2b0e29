/**
 * Part of the Python harness (see python.ts): the judge, the trusted process. It runs the tests, compares and
 * reports; under bubblewrap it is the sandbox's PID 1 and reaps every orphan.
 */
export const PYTHON_JUDGE = String.raw`# ---- the judge: the trusted process ----
# Reads the task (program, tests, expected outputs, nonce) from stdin AFTER it has forked the worker, so no process
# that runs the program ever holds them. It sends the worker inputs, reads back plain data (strict JSON, decoded
# here with a whitelist of types), compares on this side, and writes one report line per test on its stdout, which
# only it holds. Under bubblewrap it is PID 1 of the sandbox (--as-pid-1) and reaps every orphan.

# Statuses a worker may claim for a test: failures only. "pass" is the judge's word alone, and a claimed
# "sandbox_error" would blame the sandbox for the program's failure.
CLAIMABLE = ("fail", "timeout", "memory_limit", "runtime_error", "compile_error")


def claimed(status):
    return status if status in CLAIMABLE else "runtime_error"


GRACE_S = 0.5  # CPU seconds past a test's limit before the judge kills a worker that does not answer
MAX_RESTARTS = 8  # fresh workers after one died or hung; later tests get the last status
KILLED_BY_JUDGE = set()


ARM_S = 20.0  # wall seconds a new worker (or node, or the JavaScript test runner) may take to get ready


class HostFault(BaseException):
    """The sandbox could not get to run the program (a worker failed before it was armed, before any of the
    program had run): the run is a sandbox_error, reported as "fatal", never a test status."""


class WorkerGone(Exception):
    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status, self.message = status, message


class RemoteError(Exception):
    """An exception the program raised, of a type that is not a builtin exception."""


class RemoteStatus(BaseException):
    """A call that ended with a status (timeout, memory_limit, ...) rather than a value or an exception."""

    def __init__(self, status, message):
        BaseException.__init__(self, message)
        self.status, self.message = status, message


ENDED = {}  # pid -> wait status of every child reaped so far


def reap(*_):
    """Reaps every child that has ended: as PID 1 of the sandbox the judge inherits its orphans (SIGCHLD handler)."""
    while True:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        ENDED[pid] = st


class Worker:
    """One process that runs the program, and the judge's end of its two pipes."""

    generation = 0

    def __init__(self, pid, ch):
        Worker.generation += 1
        ENDED.pop(pid, None)  # an earlier process with this pid (reused) is not this one
        KILLED_BY_JUDGE.discard(pid)
        self.pid, self.ch, self.gen, self.status, self.closed = pid, ch, Worker.generation, None, False

    @staticmethod
    def start(argv=None):
        """Forks a worker: it runs worker_main (argv None: only before the task is read) or execs argv at once."""
        a_r, a_w = os.pipe()
        b_r, b_w = os.pipe()
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])  # no reaping until the Worker is known
        pid = os.fork()
        if pid == 0:
            try:
                try:  # the host's part of the start: a failure here is never the program's (see worker_main)
                    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                    hi_r, hi_w = os.dup(a_r), os.dup(b_w)
                    os.dup2(hi_r, 3)
                    os.dup2(hi_w, 4)
                    null = os.open(os.devnull, os.O_RDWR)
                    os.dup2(null, 0)
                    os.dup2(null, 1)
                    os.closerange(5, 4096)
                    os.setpgid(0, 0)
                    signal.signal(signal.SIGINT, signal.SIG_DFL)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    if argv is not None:
                        os.execv(argv[0], argv)
                    set_dumpable(1)  # the program may read its own /proc/self
                except BaseException as e:
                    start_failed(e)
                worker_main(3, 4)
            finally:
                os._exit(121)
        os.close(a_r)
        os.close(b_w)
        w = Worker(pid, Channel(b_r, a_w))
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return w

    def ended(self, st):
        self.status = st

    def exit_status(self, wait_s=0.5):
        """How the worker ended: waits a little for it after its pipe closed."""
        end = time.monotonic() + wait_s
        while self.status is None:
            reap()
            self.status = ENDED.pop(self.pid, None)
            if self.status is not None or time.monotonic() > end:
                break
            time.sleep(0.005)
        return self.status

    def gone(self):
        """WorkerGone for a worker whose pipe closed or broke."""
        st = self.exit_status()
        self.kill()
        if st is None:
            return WorkerGone("runtime_error", "the program's process stopped answering")
        if os.WIFSIGNALED(st):
            sig = os.WTERMSIG(st)
            if sig == signal.SIGXCPU:
                return WorkerGone("timeout", "CPU-time limit")
            if sig == signal.SIGKILL and self.pid not in KILLED_BY_JUDGE:
                return WorkerGone("memory_limit", "the program's process was killed (out of memory)")
            return WorkerGone("runtime_error", "the program's process was killed by signal %d" % sig)
        return WorkerGone("runtime_error", "the program's process exited (exit %d)" % os.WEXITSTATUS(st))

    def kill(self):
        if self.closed:  # its descriptors may already belong to another pipe
            return
        self.closed = True
        KILLED_BY_JUDGE.add(self.pid)
        for target in (-self.pid, self.pid):
            try:
                os.kill(target, signal.SIGKILL)
            except OSError:
                pass
        for fd in (self.ch.rfd, self.ch.wfd):
            try:
                os.close(fd)
            except OSError:
                pass

    def send(self, obj):
        if self.closed:
            raise WorkerGone("runtime_error", "the program's process was stopped")
        try:
            self.ch.send(obj)
        except OSError:
            raise self.gone()

    def recv(self, cpu_s, wall_s=None):
        """The next message, within cpu_s seconds of the worker's CPU time (None: no CPU limit) and wall_s of wall
        time (default: the backstop for cpu_s); WorkerGone when the worker ended, ran past a limit or broke the
        protocol. Where /proc cannot be read only the wall-clock limit holds."""
        if self.closed:
            raise WorkerGone("runtime_error", "the program's process was stopped")
        wall_end = time.monotonic() + (wall_s if wall_s is not None else wall_limit(cpu_s))
        cpu0 = cpu_of(self.pid) if cpu_s is not None else None
        try:
            while True:
                try:
                    msg = self.ch.recv(min(wall_end, time.monotonic() + 0.05))
                    break
                except TimeoutError:
                    if time.monotonic() >= wall_end:
                        raise
                    if cpu0 is not None:
                        used = cpu_of(self.pid)
                        if used is not None and used - cpu0 > cpu_s:
                            raise
        except TimeoutError:
            self.kill()
            raise WorkerGone("timeout", None)
        except ProtocolError as e:
            self.kill()
            raise WorkerGone("runtime_error", "the program's process broke the protocol: %s" % e)
        except OSError:
            raise self.gone()
        if msg is None:
            raise self.gone()
        if not isinstance(msg, dict):
            self.kill()
            raise WorkerGone("runtime_error", "the program's process broke the protocol")
        return msg


class Judge:
    def __init__(self, task, zygote):
        self.task = task
        self.nonce = task["nonce"]
        self.language = task.get("language", "python")
        self.test_s = task.get("testTimeoutMs", 2000) / 1000.0
        self.cap = task.get("outputLimit", 1 << 20)
        self.zygote = zygote
        self.restarts = 0
        self.out = 1
        self.started = False  # the program has been sent to a worker: from then on, every failure may be its doing

    # -- reporting --
    def emit(self, obj):
        data = (self.nonce + " " + json.dumps(obj, default=repr) + "\n").encode("utf-8", "replace")
        while data:
            data = data[os.write(self.out, data):]

    def report(self, i, status, message=None):
        rec = {"t": i, "s": status}
        if message:
            rec["m"] = str(message)[:300]
        self.emit(rec)

    def fail_all(self, tests, status, message):
        for i in tests:
            self.report(i, status, message)

    # -- workers --
    def start_program(self):
        """Marks the moment the program's text first leaves the judge. The "started" line reaches the host before
        the program exists anywhere in the sandbox, so the program cannot keep it from being written; a run without
        it never got to the program (report.ts: sandbox_error)."""
        if not self.started:
            self.started = True
            self.emit({"started": True})

    def await_exec(self, w):
        """The worker's "exec" acknowledgement (it then becomes node): None, or why not as await_armed says it."""
        try:
            msg = w.ch.recv(time.monotonic() + 5.0)
            if isinstance(msg, dict) and msg.get("op") == "exec":
                return None
        except (OSError, TimeoutError, ProtocolError):
            w.kill()
        return self.start_failure(w, "the worker", "it did not switch to node")

    def await_armed(self, w, who):
        """Waits for a new process's "armed" (sent by harness code before it can hold the program). None when it
        armed; else why not, or HostFault while the program has not been sent anywhere yet: nothing of it ran, so
        the failure is the host's (a broken /dev/null, a missing interpreter, seccomp refused). Once the program has
        run, a worker that cannot start may be its doing (processes left behind, a full /tmp): the status stays
        the program's."""
        try:
            msg = w.ch.recv(time.monotonic() + ARM_S)
            if isinstance(msg, dict) and msg.get("op") == "armed":
                return None
            if msg is None:
                why = None
            elif isinstance(msg, dict) and msg.get("op") == "unarmed" and isinstance(msg.get("m"), str):
                why = msg["m"][:300]
            else:
                why = "it broke the start-up protocol"
                w.kill()
        except TimeoutError:
            why = "no answer within %gs" % ARM_S
            w.kill()
        except (OSError, ProtocolError) as e:
            why = "its channel failed: %s" % e
            w.kill()
        return self.start_failure(w, who, why)

    def start_failure(self, w, who, why):
        """Why a process did not start (its exit status and what it said); HostFault before the program started."""
        st = w.exit_status(2.0)
        w.kill()
        end = "exit %d" % os.WEXITSTATUS(st) if st is not None and os.WIFEXITED(st) else ("signal %d" % os.WTERMSIG(st) if st is not None and os.WIFSIGNALED(st) else "still running")
        text = "%s did not start (%s)%s" % (who, end, ": " + why if why else "")
        if not self.started:
            raise HostFault(text)
        return text

    def init_message(self, mode):
        t = self.task
        msg = {"op": "init", "mode": mode, "language": self.language, "program": t["program"], "testMs": t.get("testTimeoutMs", 2000),
               "outputLimit": self.cap, "entryPoint": t.get("entryPoint"), "prelude": t.get("prelude") or ""}
        if t.get("node"):
            msg["node"] = t["node"]
        return msg

    def harden(self, msg):
        for k in ("bpf", "bpfOptional", "dropRoot"):
            if self.task.get(k):
                msg[k] = self.task[k]
        return msg

    def new_worker(self, mode):
        """A worker with the program loaded: (worker, None) or (None, (status, message)) when it cannot load."""
        if self.zygote is not None:
            w, self.zygote = self.zygote, None
        else:
            if self.restarts >= MAX_RESTARTS:
                return None, ("runtime_error", "not run: the program's process ended %d times" % self.restarts)
            self.restarts += 1
            w = Worker.start([sys.executable, "-s", "-c", self.task["harness"], "worker"])
        try:
            w.ch.send(self.harden({"op": "prepare"}))
        except OSError:
            pass  # it is gone already: await_armed reads what it said and how it ended
        why = self.await_armed(w, "the worker")
        if why is None and self.language == "javascript" and mode != "stdio":
            try:
                w.ch.send({"op": "exec", "argv": self.task["node"] + ["-e", self.task["jsRunner"]]})
            except OSError:
                pass
            why = self.await_exec(w)
            if why is None:
                why = self.await_armed(w, "node (the JavaScript worker)")
        if why is not None:
            return None, ("runtime_error", why)
        self.start_program()
        try:
            w.send(self.init_message(mode))
            msg = w.recv(self.test_s + GRACE_S + (2.0 if self.language == "javascript" else 0.0))
        except WorkerGone as e:
            if e.status == "timeout":
                return None, ("timeout", "time limit %.3gs while loading the program" % self.test_s)
            return None, (e.status, e.message)
        if msg.get("op") != "loaded" or "s" in msg:
            w.kill()
            return None, (claimed(msg.get("s")), msg.get("m") if isinstance(msg.get("m"), str) else "the program's process broke the protocol")
        if self.task.get("entryPoint") and msg.get("entry") is False:
            w.kill()
            return None, ("runtime_error", "entry point %r is not defined" % self.task["entryPoint"])
        return w, None

    # -- kinds --
    def run(self):
        kind = self.task["kind"]
        go = {"call": self.run_call, "stdio": self.run_stdio, "assert": self.run_assert}.get(kind)
        if go is None:
            self.emit({"fatal": "unknown kind %r" % (kind,)})
        else:
            go()
        self.emit({"done": True})

    def run_batch(self, mode, n, message, judge):
        """Sends the inputs of the pending tests to a worker in one message and judges its replies in order;
        a worker that dies or hangs on a test is replaced for the tests after it."""
        pending = list(range(n))
        last = None
        while pending:
            w, bad = self.new_worker(mode)
            if bad is not None:
                if last is not None and self.restarts >= MAX_RESTARTS:
                    bad = (last[0], "not run: " + (last[1] or last[0]))
                return self.fail_all(pending, bad[0], bad[1])
            batch = list(pending)
            try:
                w.send(message(batch))
                for pos, i in enumerate(batch):
                    # stdio: the worker itself limits each case's process (CPU time, with the wall backstop)
                    rep = w.recv(None, wall_limit(self.test_s) + 2.0) if mode == "stdio" else w.recv(self.test_s + GRACE_S)
                    if rep.get("i") != pos:
                        w.kill()
                        raise WorkerGone("runtime_error", "the program's process broke the protocol")
                    pending.pop(0)
                    self.report(i, *judge(i, rep))
                w.kill()
            except WorkerGone as e:
                i = pending.pop(0)
                msg = e.message or ("time limit %.3gs" % self.test_s if e.status == "timeout" else None)
                self.report(i, e.status, msg)
                last = (e.status, msg)

    def run_call(self):
        t = self.task
        cases = t["cases"]
        n = len(cases)
        self.emit({"ready": n})
        enc = t.get("encoding", "json")
        js = self.language == "javascript"
        compare = COMPARE["taco" if t.get("compare") == "taco" else ("javascript" if js else "python")]
        truthy = t.get("compare") == "truthy"
        atol = float(t.get("atol") or 0)

        def message(pending):
            return {"op": "cases", "fn": t["entryPoint"], "enc": enc, "truthy": truthy, "cases": [cases[i]["input"] for i in pending]}

        def judge(i, rep):
            if "s" in rep:
                st = claimed(rep["s"])
                return st, rep.get("m") or ("time limit %.3gs" % self.test_s if st == "timeout" else None)
            try:
                exp = literal(cases[i]["output"]) if enc == "python" else decode_reference(cases[i]["output"], js)
            except Exception as e:
                return "sandbox_error", "bad case: %s" % e
            try:
                out = from_wire(rep.get("v"), rep.get("objs", ()), js)
            except ProtocolError as e:
                return "fail", "unreadable return value: %s" % e
            if truthy and type(out) is not bool:
                return "fail", "a truth value was expected"
            try:
                good = compare(out, exp, atol)
            except Exception as e:
                good, rep = False, {"m": "comparison failed: %s" % e}
            return ("pass", None) if good else ("fail", rep.get("m") or "got " + show(out))

        self.run_batch("call", n, message, judge)

    def run_stdio(self):
        t = self.task
        cases = t["cases"]
        n = len(cases)
        self.emit({"ready": n})
        how, atol, rtol = t.get("compare", "lines"), float(t.get("atol") or 0), float(t.get("rtol") or 0)

        def message(pending):
            return {"op": "cases", "cases": [cases[i].get("stdin", "") for i in pending]}

        def judge(i, rep):
            if rep.get("timeout"):
                return "timeout", "time limit %.3gs" % self.test_s
            if rep.get("over"):
                return "fail", "output over %d bytes" % self.cap
            err = rep.get("err") or ""
            if "sig" in rep:
                sig = rep["sig"]
                if sig == signal.SIGXCPU:
                    return "timeout", "CPU-time limit"
                if sig == signal.SIGKILL:
                    return "memory_limit", "killed (out of memory)"
                return "runtime_error", "killed by signal %d" % sig
            if rep.get("code") != 0:
                st = "memory_limit" if ("MemoryError" in err or "heap out of memory" in err) else "runtime_error"
                return st, (err.strip() or "exit %s" % rep.get("code"))[-300:]
            out = rep.get("out")
            if not isinstance(out, str):
                return "fail", "no output"
            good = same_stdout(out, cases[i].get("stdout", ""), how, atol, rtol)
            return ("pass", None) if good else ("fail", "stdout %.120r" % out)

        self.run_batch("stdio", n, message, judge)

    def run_assert(self):
        if self.language == "javascript":
            return self.run_assert_js()
        return AssertRun(self).run()

    def run_assert_js(self):
        self.emit({"ready": 1})
        # The test runner holds the test code: it runs from an execute-only copy of node where there is one, which
        # makes the kernel mark it undumpable (the program cannot open its /proc/<pid>/mem or fd). It is started
        # (and armed) before the program's worker, so that its failure to start is never the program's doing.
        check = Worker.start(self.task.get("nodeCheck", self.task["node"]) + ["-e", self.task["jsCheck"]])
        self.await_armed(check, "node (the JavaScript test runner)")
        w, bad = self.new_worker("call")
        if bad is not None:
            check.kill()
            return self.report(0, *bad)
        deadline = time.monotonic() + wall_limit(self.test_s) + 5.0
        try:
            check.send({"op": "init", "test": self.task["test"], "entryPoint": self.task["entryPoint"], "testMs": self.task.get("testTimeoutMs", 2000)})
            while True:
                try:
                    msg = check.recv(None, max(0.0, deadline - time.monotonic()))
                except WorkerGone as e:  # the test runner was stopped or killed (the program can signal it)
                    return self.report(0, "timeout" if e.status == "timeout" else "runtime_error", e.message or "the test did not finish")
                if msg.get("op") == "result":
                    st = msg.get("s")
                    st = st if st in ("pass", "fail", "timeout", "memory_limit", "runtime_error") else "runtime_error"
                    return self.report(0, st, msg.get("m"))
                rid = msg.get("id")
                try:
                    w.send({"op": "call", "id": rid, "target": {"name": self.task["entryPoint"]}, "args": msg.get("args", []), "ms": msg.get("ms", self.test_s * 1000)})
                    rep = w.recv(self.test_s + GRACE_S)
                    if "v" in rep:
                        try:
                            from_wire(rep["v"], rep.get("objs", ()), True)  # strict: only well-formed data goes on
                        except ProtocolError as e:
                            rep = {"err": "TypeError", "m": "unreadable return value: %s" % e}
                except WorkerGone as e:
                    rep = {"s": e.status, "m": e.message or "the program's process ended"}
                    w = None
                if "s" in rep:
                    rep["s"] = claimed(rep["s"])
                check.send({k: rep[k] for k in ("v", "s", "m", "err") if k in rep})
                if w is None:
                    w, bad = self.new_worker("call")
                    if bad is not None:
                        w = None
        finally:
            check.kill()
            if w is not None:
                w.kill()


def _free_names(tree):
    """Names the test code reads but never binds itself."""
    loaded, bound = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.append(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                bound.add((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    seen = []
    for n in loaded:
        if n not in bound and n not in seen and not hasattr(builtins, n):
            seen.append(n)
    return seen


_TIMERS = {signal.SIGALRM: signal.ITIMER_REAL, signal.SIGPROF: signal.ITIMER_PROF}
_ARMED = [False]


def _judge_alarm(signum, frame):
    """The judge's deadline, only when its own timer expired: the program may send SIGALRM or SIGPROF to PID 1
    (a handler makes init receive it), which must not cut a test short or crash the judge between tests."""
    if _ARMED[0] and signal.getitimer(_TIMERS[signum]) == (0.0, 0.0):
        raise Deadline()


_EXCEPTIONS = {n: c for n, c in vars(builtins).items() if isinstance(c, type) and issubclass(c, Exception)}


class AssertRun:
    """Python "assert" tests: the test code runs here, in the judge; the program's functions and classes are
    proxies whose calls go to the worker. Each top-level statement of check() holding an assert is one test."""

    def __init__(self, judge):
        self.j = judge
        self.w = None
        self.next_id = 0
        self.budget = None  # CPU seconds the program may still use in the current test statement
        self.load_error = None

    # -- the worker behind the proxies --
    def worker(self):
        if self.w is None:
            if self.load_error is not None:
                raise RemoteStatus(*self.load_error)
            self.w, bad = self.j.new_worker("call")
            if bad is not None:
                self.load_error = bad
                raise RemoteStatus(*bad)
        return self.w

    def request(self, op, **fields):
        w = self.worker()
        self.next_id += 1
        rid = self.next_id
        left = max(0.001, self.budget if self.budget is not None else self.j.test_s)
        fields.update(op=op, id=rid, ms=max(1, int(left * 1000)))
        cpu0 = cpu_of(w.pid)
        try:
            w.send(fields)
            while True:
                rep = w.recv(left + GRACE_S)
                if rep.get("id") == rid:
                    break
        except WorkerGone as e:
            self.w = None
            raise RemoteStatus(e.status, e.message or ("time limit %.3gs" % self.j.test_s if e.status == "timeout" else None))
        except Deadline:
            w.kill()
            self.w = None
            raise
        if self.budget is not None and cpu0 is not None:  # the statement's limit counts the program's CPU time
            used = cpu_of(w.pid)
            if used is not None:
                self.budget -= used - cpu0
        return rep

    def result(self, rep, gen):
        if "s" in rep:
            if rep["s"] == "fail":
                raise TypeError(rep.get("m") or "the program returned a value with no literal form")
            raise RemoteStatus(claimed(rep["s"]), rep.get("m"))
        if "err" in rep:
            cls = _EXCEPTIONS.get(rep["err"])
            msg = rep.get("m") or rep["err"]
            raise (cls(msg) if cls is not None else RemoteError(msg))
        if "h" in rep:
            return RemoteInstance(self, gen, rep["h"])
        if rep.get("callable"):
            return None
        try:
            return from_wire(rep.get("v"), rep.get("objs", ()), handle=lambda h: RemoteInstance(self, gen, h))
        except ProtocolError as e:
            raise TypeError("unreadable value from the program: %s" % e)

    def wire_args(self, args, kwargs, gen):
        def one(x):
            if isinstance(x, RemoteInstance):
                if x._rk_gen != gen:
                    raise RemoteError("the program's process was restarted: its objects are gone")
                return {"$h": x._rk_h}
            try:
                return to_wire(x)[0]
            except NotWire as e:
                raise RemoteStatus("sandbox_error", "the test passes %s to the program, which cannot cross the process boundary" % e)

        return [one(a) for a in args], {k: one(v) for k, v in kwargs.items()}

    def call(self, target, args, kwargs, op="call"):
        w = self.worker()
        if "h" in target and target.get("gen") != w.gen:
            raise RemoteError("the program's process was restarted: its objects are gone")
        a, k = self.wire_args(args, kwargs, w.gen)
        echo = [i for i, x in enumerate(args) if type(x) in (list, dict, set)]
        rep = self.request(op, target={x: y for x, y in target.items() if x != "gen"}, args=a, kwargs=k, echo=echo)
        value = self.result(rep, w.gen)
        for i, new in rep.get("echo") or []:  # the call changed an argument in place: so does the proxy
            try:
                new = from_wire(new)
                old = args[i]
                if type(old) is list and type(new) is list:
                    old[:] = new
                elif type(old) is dict and type(new) is dict:
                    old.clear()
                    old.update(new)
                elif type(old) is set and type(new) is set:
                    old.clear()
                    old.update(new)
            except (ProtocolError, TypeError, IndexError):
                pass
        return value

    # -- the run --
    def run(self):
        j, t = self.j, self.j.task
        src = t["test"]
        try:
            tree = ast.parse(src)
        except SyntaxError as e:
            j.emit({"ready": 1})
            return j.report(0, "sandbox_error", "the test code does not parse: %s" % e)
        check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
        invoke = None  # a module-level check(<candidate>) (LeetCode "functional" tests)
        setup = []
        for n in tree.body:
            if check is not None and isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) and n.value.func.id == "check" and len(n.value.args) == 1 and invoke is None:
                invoke = n.value.args[0]
            else:
                setup.append(n)
        if check is None:  # no check(): the whole test code is one test (asserts that call the program by name)
            return self.run_module(tree)
        steps = self.split(check)
        n = sum(1 for is_test, _ in steps if is_test) if steps else 1
        if n == 0:
            steps, n = None, 1
        j.emit({"ready": n})
        ns = self.namespace()
        signal.signal(signal.SIGALRM, _judge_alarm)
        signal.signal(signal.SIGPROF, _judge_alarm)
        try:
            self.bind(tree, ns)
        except RemoteStatus as e:
            return j.fail_all(range(n), e.status, e.message)
        except Deadline:
            return j.fail_all(range(n), "timeout", "time limit %.3gs" % j.test_s)
        st, msg = self.guarded(lambda: exec(compile(ast.Module(body=setup, type_ignores=[]), "test.py", "exec"), ns))
        if st != "pass":
            return j.fail_all(range(n), "sandbox_error" if st == "runtime_error" else st, "test code failed: %s" % msg)
        if invoke is not None:
            st, cand = self.guarded(lambda: eval(compile(ast.Expression(invoke), "test.py", "eval"), ns), value=True)
            if st != "pass":
                return j.fail_all(range(n), st, cand)
        else:
            cand = ns.get(t.get("entryPoint"))
            if cand is None:
                return j.fail_all(range(n), "runtime_error", "entry point %r is not defined" % t.get("entryPoint"))
        if steps is None:
            st, msg = self.guarded(lambda: ns["check"](cand))
            return j.report(0, st, msg)
        param = check.args.args[0].arg
        scope = dict(ns)
        scope[param] = cand
        i, setup_error = 0, None
        for is_test, code in steps:
            st, msg = self.guarded(lambda: exec(code, scope))
            if not is_test:
                if st != "pass" and setup_error is None:
                    setup_error = (st, msg)
                continue
            if st == "pass" and setup_error is not None:
                st, msg = setup_error
            j.report(i, st, msg)
            i += 1

    def bind(self, tree, ns):
        """Binds the program's names that the test code reads to proxies (functions, classes) or values."""
        t = self.j.task
        names = [x for x in _free_names(tree) if x not in ns]
        if t.get("entryPoint") and t["entryPoint"] not in names:
            names.append(t["entryPoint"])
        rep = self.request("describe", names=names)
        for name, d in (rep.get("kinds") or {}).items():
            if not isinstance(d, dict) or name not in names:
                continue
            if d.get("k") == "function":
                ns[name] = RemoteFunction(self, {"name": name}, name)
            elif d.get("k") == "class":
                ns[name] = RemoteClass(self, name)
            elif d.get("k") == "value":
                try:
                    ns[name] = from_wire(d.get("v"), d.get("objs", ()))
                except ProtocolError:
                    pass

    def namespace(self):
        ns = {"__name__": "__rk_test__", "__builtins__": builtins}
        if self.j.task.get("prelude"):
            exec(compile(self.j.task["prelude"], "prelude.py", "exec"), ns)
        return ns

    def run_module(self, tree):
        j = self.j
        j.emit({"ready": 1})
        ns = self.namespace()
        signal.signal(signal.SIGALRM, _judge_alarm)
        signal.signal(signal.SIGPROF, _judge_alarm)
        try:
            self.bind(tree, ns)
        except RemoteStatus as e:
            return j.report(0, e.status, e.message)
        except Deadline:
            return j.report(0, "timeout", "time limit %.3gs" % j.test_s)
        st, msg = self.guarded(lambda: exec(compile(tree, "test.py", "exec"), ns))
        j.report(0, st, msg)

    def guarded(self, fn, value=False):
        """(status, message) of one test statement run here: the program's CPU time in it (its calls) and the
        judge's own (ITIMER_PROF) each within the per-test limit, the statement's wall time within the backstop."""
        self.budget = self.j.test_s
        signal.setitimer(signal.ITIMER_PROF, self.j.test_s)
        signal.setitimer(signal.ITIMER_REAL, wall_limit(self.j.test_s))
        _ARMED[0] = True
        try:
            v = fn()
            self._stop()
            return ("pass", v) if value else ("pass", None)
        except Deadline:
            return "timeout", "time limit %.3gs" % self.j.test_s
        except HostFault:
            raise
        except RemoteStatus as e:
            self._stop()
            return e.status, e.message
        except AssertionError as e:
            self._stop()
            return "fail", "AssertionError: %s" % (e,)
        except MemoryError:
            self._stop()
            return "memory_limit", "MemoryError"
        except BaseException as e:
            self._stop()
            return "runtime_error", "%s: %s" % (type(e).__name__, e)
        finally:
            self._stop()
            self.budget = None

    @staticmethod
    def _stop():
        _ARMED[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)

    @staticmethod
    def split(check):
        """check()'s top-level statements as (holds an assert, code); None when it cannot be split."""
        if check is None or not check.args.args:
            return None
        steps = []
        for stmt in check.body:
            if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Nonlocal)) for n in ast.walk(stmt)):
                return None
            try:
                code = compile(ast.Module(body=[stmt], type_ignores=[]), "test.py", "exec")
            except SyntaxError:
                return None
            steps.append((any(isinstance(n, ast.Assert) for n in ast.walk(stmt)), code))
        return steps


class RemoteFunction:
    """A function (or bound method) of the program; calling it calls it in the worker."""

    def __init__(self, run, target, name):
        self._rk_run, self._rk_target, self.__name__ = run, target, name

    def __call__(self, *args, **kwargs):
        return self._rk_run.call(self._rk_target, args, kwargs)

    def __repr__(self):
        return "<function %s of the program>" % self.__name__


class RemoteClass:
    """A class of the program; calling it makes an instance in the worker."""

    def __init__(self, run, name):
        self._rk_run, self.__name__ = run, name

    def __call__(self, *args, **kwargs):
        return self._rk_run.call({"name": self.__name__}, args, kwargs, op="new")

    def __repr__(self):
        return "<class %s of the program>" % self.__name__


class RemoteInstance:
    """An object that lives in the worker: attributes are read there, methods called there. It is equal only to
    itself and has no truth value of its own (both would be the program's word)."""

    __slots__ = ("_rk_run", "_rk_gen", "_rk_h")

    def __init__(self, run, gen, h):
        object.__setattr__(self, "_rk_run", run)
        object.__setattr__(self, "_rk_gen", gen)
        object.__setattr__(self, "_rk_h", h)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        run = object.__getattribute__(self, "_rk_run")
        target = {"h": object.__getattribute__(self, "_rk_h"), "gen": object.__getattribute__(self, "_rk_gen")}
        w = run.worker()
        if target["gen"] != w.gen:
            raise RemoteError("the program's process was restarted: its objects are gone")
        rep = run.request("getattr", target={"h": target["h"]}, attr=name)
        if rep.get("callable"):
            return RemoteFunction(run, dict(target, attr=name), name)
        return run.result(rep, w.gen)

    def __bool__(self):
        raise TypeError("an object of the program has no truth value here")

    def __repr__(self):
        return "<object of the program>"


def _read_exactly(n):
    b = bytearray()
    while len(b) < n:
        c = os.read(0, min(n - len(b), 1 << 20))
        if not c:
            raise EOFError("the task ended early")
        b += c
    return b


def judge_main(rollout=False):
    """rollout: started by a zygote (python-zygote.ts): the task is one length-prefixed frame on stdin, and the
    judge draws the report nonce itself, after the worker is forked, and announces it as its first line."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a signal from the program must not end the judge
    signal.signal(signal.SIGCHLD, reap)
    set_dumpable(0)  # before anything secret is in this process
    zygote = Worker.start()  # before the task is read: the worker never holds it
    nonce = None
    if rollout:
        nonce = os.urandom(12).hex()  # drawn in this process, after the fork: no other process ever held it
        os.write(1, ("rk-nonce %s\n" % nonce).encode("ascii"))
        data = _read_exactly(int.from_bytes(_read_exactly(8), "little"))
    else:
        data = bytearray()
        while True:
            chunk = os.read(0, 1 << 20)
            if not chunk:
                break
            data += chunk
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    task = json.loads(bytes(data))
    del data
    if nonce is not None:
        task["nonce"] = nonce
    judge = Judge(task, zygote)
    try:
        judge.run()
    except HostFault as e:
        judge.emit({"fatal": str(e)})
    except BaseException as e:  # noqa: a judge failure is the sandbox's, never the program's score
        try:
            judge.emit({"fatal": "judge: %s: %s" % (type(e).__name__, e)})
        except BaseException:
            pass
    os._exit(0)


`;
