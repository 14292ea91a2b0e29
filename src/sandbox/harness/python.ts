/**
 * The Python test harness, run inside the sandbox as `python3 harness.py task.json`.
 *
 * Protocol: it reads the task (program, kind, cases, limits, nonce), prints `<nonce> {"ready": n}` before it runs
 * any of the program's code, then one `<nonce> {"t": i, "s": status, "m"?: message}` line per test as soon as the
 * test ends, then `<nonce> {"done": true}`. Statuses: pass, fail, timeout, memory_limit, runtime_error,
 * compile_error, sandbox_error. The host marks tests without a line (the sandbox was killed) itself.
 * Kept as a string so that `tsc` ships it in `dist/` with no copy step; it must not contain a backtick.
 */
export const PYTHON_HARNESS = String.raw`# rewardkit code harness (Python). Runs every test of one rollout inside the sandbox and reports each
# test's status as one line "<nonce> <json>" on the original stdout. The program's own stdout goes to a
# capped in-memory sink (or /dev/null at the file-descriptor level), so it cannot flood the report.
import ast, base64, io, json, math, os, signal, sys, time
from collections import Counter, OrderedDict

_write = os.write
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)  # expected outputs may be integers of thousands of digits
_dumps = json.dumps


class _Deadline(BaseException):
    """Raised by SIGALRM when one test passes its time limit (BaseException: "except Exception" in user code does not swallow it)."""


def _alarm(signum, frame):
    raise _Deadline()


class _Sink(io.TextIOBase):
    """A text stream that keeps at most "cap" characters and drops the rest."""

    def __init__(self, cap):
        self.parts, self.size, self.cap = [], 0, cap

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str")
        room = self.cap - self.size
        if room > 0:
            self.parts.append(s[:room])
        self.size += len(s)
        return len(s)

    def value(self):
        return "".join(self.parts)


_LITERAL_NAMES = {"nan": float("nan"), "inf": float("inf"), "set": set, "frozenset": frozenset, "Counter": Counter, "OrderedDict": OrderedDict}


def _literal(text):
    """A Python literal as written by repr(): tuples, sets, dicts, bytes, complex, nan and inf included."""
    return eval(compile(text, "<case>", "eval"), {"__builtins__": {}}, dict(_LITERAL_NAMES))


def _decode(v):
    """JSON value to Python value: the tagged objects {"$tuple": [...]}, {"$set": [...]}, {"$frozenset": [...]},
    {"$float": "nan"}, {"$int": "123"}, {"$dict": [[k, v], ...]}, {"$bytes": "<base64>"}, {"$complex": [re, im]}."""
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if isinstance(v, dict):
        if len(v) == 1:
            k, x = next(iter(v.items()))
            if k == "$tuple":
                return tuple(_decode(y) for y in x)
            if k == "$set":
                return set(_decode(y) for y in x)
            if k == "$frozenset":
                return frozenset(_decode(y) for y in x)
            if k == "$float":
                return float(x)
            if k == "$int":
                return int(x)
            if k == "$dict":
                return {_decode(a): _decode(b) for a, b in x}
            if k == "$bytes":
                return base64.b64decode(x)
            if k == "$complex":
                return complex(x[0], x[1])
        return {k: _decode(x) for k, x in v.items()}
    return v


def _show(v):
    """A short description of a value for a failure message, cheap even for huge integers."""
    if isinstance(v, int) and v.bit_length() > 4000:
        return "an integer of about %d digits" % int(v.bit_length() * 0.30103)
    try:
        return repr(v)[:120]
    except BaseException:
        return "a %s" % type(v).__name__


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _same(out, exp, atol):
    """Python equality, except that NaN equals NaN and floats may differ by "atol" (plus 1e-7 relative when atol > 0)."""
    if _is_number(out) and _is_number(exp):
        if isinstance(out, float) or isinstance(exp, float):
            if math.isnan(out) or math.isnan(exp):
                return math.isnan(out) and math.isnan(exp)
            if out == exp:  # also inf == inf, where inf - inf is nan
                return True
            if math.isinf(out) or math.isinf(exp):
                return False
            if atol > 0:
                return abs(out - exp) <= atol + 1e-7 * abs(exp)
        return out == exp
    if type(out) is not type(exp):
        if isinstance(out, bool) or isinstance(exp, bool) or not (isinstance(out, (list, tuple)) and isinstance(exp, (list, tuple))):
            return out == exp
        return False
    if isinstance(out, (list, tuple)):
        return len(out) == len(exp) and all(_same(a, b, atol) for a, b in zip(out, exp))
    if isinstance(out, dict):
        return out.keys() == exp.keys() and all(_same(out[k], exp[k], atol) for k in exp)
    return out == exp


class Harness:
    def __init__(self, task):
        self.task = task
        self.nonce = task["nonce"]
        self.test_s = task.get("testTimeoutMs", 2000) / 1000.0
        self.cap = task.get("outputLimit", 1 << 20)
        self.out_fd = os.dup(1)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
        signal.signal(signal.SIGALRM, _alarm)

    def emit(self, obj):
        data = (self.nonce + " " + _dumps(obj, default=repr) + "\n").encode("utf-8", "replace")
        while data:
            data = data[_write(self.out_fd, data):]

    def report(self, i, status, message=None):
        rec = {"t": i, "s": status}
        if message:
            rec["m"] = message[:300]
        self.emit(rec)

    def guarded(self, fn, stdin_text=None):
        """Runs fn() under the per-test limit; returns (status, value, message, sink)."""
        sink = _Sink(self.cap)
        old = sys.stdout, sys.stdin
        sys.stdout = sink
        if stdin_text is not None:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin_text.encode("utf-8")), encoding="utf-8")
        signal.setitimer(signal.ITIMER_REAL, self.test_s)
        try:
            value = fn()
            signal.setitimer(signal.ITIMER_REAL, 0)
            return "ok", value, None, sink
        except _Deadline:
            return "timeout", None, "time limit %.3gs" % self.test_s, sink
        except MemoryError:
            signal.setitimer(signal.ITIMER_REAL, 0)
            return "memory_limit", None, "MemoryError", sink
        except SystemExit as e:
            signal.setitimer(signal.ITIMER_REAL, 0)
            return "exit", None, "SystemExit(%r)" % (e.code,), sink
        except AssertionError as e:
            signal.setitimer(signal.ITIMER_REAL, 0)
            return "assert", None, "AssertionError: %s" % (e,), sink
        except BaseException as e:  # noqa: the program may raise anything
            signal.setitimer(signal.ITIMER_REAL, 0)
            return "error", None, "%s: %s" % (type(e).__name__, e), sink
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            sys.stdout, sys.stdin = old

    def load(self, ns):
        """Compiles and runs the program; returns None or (status, message) for a program that cannot load."""
        try:
            code = compile(self.task["program"], "solution.py", "exec")
        except (SyntaxError, ValueError) as e:
            return "compile_error", "%s: %s" % (type(e).__name__, e)
        st, _, msg, _ = self.guarded(lambda: exec(code, ns))
        if st == "ok":
            return None
        return {"timeout": "timeout", "memory_limit": "memory_limit"}.get(st, "runtime_error"), msg

    def fail_all(self, n, status, msg):
        for i in range(n):
            self.report(i, status, msg)

    def run(self):
        kind = self.task["kind"]
        if kind == "call":
            self.run_call()
        elif kind == "assert":
            self.run_assert()
        elif kind == "stdio":
            self.run_stdio()
        else:
            self.emit({"fatal": "unknown kind %r" % kind})
        self.emit({"done": True})

    def run_call(self):
        cases = self.task["cases"]
        python = self.task.get("encoding", "json") == "python"
        atol = float(self.task.get("atol") or 0)
        self.emit({"ready": len(cases)})
        ns = {"__name__": "__rk_solution__"}
        bad = self.load(ns)
        if bad:
            return self.fail_all(len(cases), *bad)
        fn = ns.get(self.task["entryPoint"])
        if not callable(fn):
            return self.fail_all(len(cases), "runtime_error", "entry point %r is not defined" % self.task["entryPoint"])
        for i, case in enumerate(cases):
            try:
                args = _literal(case["input"]) if python else _decode(case["input"])
                exp = _literal(case["output"]) if python else _decode(case["output"])
            except Exception as e:
                self.report(i, "sandbox_error", "bad case: %s" % e)
                continue
            st, out, msg, _ = self.guarded(lambda: fn(*args))
            if st == "ok":
                try:
                    good = _same(out, exp, atol)
                except BaseException as e:
                    good, msg = False, "comparison failed: %s" % e
                self.report(i, "pass" if good else "fail", None if good else (msg or "got " + _show(out)))
            else:
                self.report(i, {"timeout": "timeout", "memory_limit": "memory_limit", "assert": "runtime_error"}.get(st, "runtime_error"), msg)

    def split_check(self, test_src):
        """Splits "def check(candidate)" into its top-level statements: those holding an assert are tests, the rest set-up."""
        try:
            tree = ast.parse(test_src)
        except SyntaxError:
            return None
        check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
        if check is None or not check.args.args:
            return None
        steps = []
        for stmt in check.body:
            has_assert = any(isinstance(n, ast.Assert) for n in ast.walk(stmt))
            if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Nonlocal)) for n in ast.walk(stmt)):
                return None
            try:
                code = compile(ast.Module(body=[stmt], type_ignores=[]), "test.py", "exec")
            except SyntaxError:
                return None
            steps.append((has_assert, code))
        return check.args.args[0].arg, steps

    def run_assert(self):
        test_src = self.task["test"]
        split = self.split_check(test_src)
        n = sum(1 for t, _ in split[1] if t) if split else 1
        if n == 0:
            split, n = None, 1
        self.emit({"ready": n})
        ns = {"__name__": "__rk_solution__"}
        bad = self.load(ns)
        if bad:
            return self.fail_all(n, *bad)
        fn = ns.get(self.task["entryPoint"])
        if not callable(fn):
            return self.fail_all(n, "runtime_error", "entry point %r is not defined" % self.task["entryPoint"])
        st, _, msg, _ = self.guarded(lambda: exec(compile(test_src, "test.py", "exec"), ns))
        if st != "ok":
            return self.fail_all(n, "sandbox_error" if st == "error" else st, "test code failed: %s" % msg)
        if split is None:
            st, _, msg, _ = self.guarded(lambda: ns["check"](fn))
            return self.report(0, _status(st), msg)
        param, steps = split
        scope = dict(ns)
        scope[param] = fn
        i, setup_error = 0, None
        for is_test, code in steps:
            st, _, msg, _ = self.guarded(lambda: exec(code, scope))
            if not is_test:
                if st != "ok" and setup_error is None:
                    setup_error = (_status(st), msg)
                continue
            if st == "ok" and setup_error is not None:
                st, msg = setup_error[0], setup_error[1]
                self.report(i, st, msg)
            else:
                self.report(i, _status(st), msg)
            i += 1

    def run_stdio(self):
        cases = self.task["cases"]
        self.emit({"ready": len(cases)})
        try:
            code = compile(self.task["program"], "solution.py", "exec")
        except (SyntaxError, ValueError) as e:
            return self.fail_all(len(cases), "compile_error", "%s: %s" % (type(e).__name__, e))
        for i, case in enumerate(cases):
            ns = {"__name__": "__main__"}
            st, _, msg, sink = self.guarded(lambda: exec(code, ns), case.get("stdin", ""))
            if st == "exit" and msg in ("SystemExit(None)", "SystemExit(0)"):
                st = "ok"
            if st != "ok":
                self.report(i, _status(st), msg)
                continue
            if sink.size > sink.cap:
                self.report(i, "fail", "output over %d characters" % sink.cap)
                continue
            good = _normalize(sink.value()) == _normalize(case.get("stdout", ""))
            self.report(i, "pass" if good else "fail", None if good else "stdout %.120r" % sink.value())


def _status(st):
    return {"ok": "pass", "assert": "fail", "timeout": "timeout", "memory_limit": "memory_limit"}.get(st, "runtime_error")


def _normalize(text):
    lines = [l.rstrip() for l in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def main():
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as f:
            task = json.load(f)
    else:
        task = json.loads(base64.b64decode(_EMBEDDED).decode("utf-8"))
    Harness(task).run()
    sys.stdout.flush()
    os._exit(0)


_EMBEDDED = ""
if __name__ == "__main__":
    main()
`;
