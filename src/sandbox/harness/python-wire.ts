/**
 * Part of the Python harness (see python.ts): values on the wire between the judge and the worker, the
 * reference's literals, and the comparison rules. Kept as a string so that `tsc` ships it in `dist/` with no copy
 * step; it must not contain a backtick.
 */
export const PYTHON_WIRE = String.raw`# ---- values on the wire, literals, comparison (shared by the judge and the worker) ----
import builtins, io, json, math, os, select, signal, sys, time
from collections import Counter, OrderedDict, defaultdict, deque


class _Lazy:
    """A module imported on first use (start-up time is per rollout: most runs never need these)."""

    def __init__(self, name):
        self._rk_name, self._rk_mod = name, None

    def __getattr__(self, attr):
        if self._rk_mod is None:
            self._rk_mod = __import__(self._rk_name)
        return getattr(self._rk_mod, attr)


ast, base64, types = _Lazy("ast"), _Lazy("base64"), _Lazy("types")

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)  # expected outputs may be integers of thousands of digits

MAX_LINE = 64 << 20  # bytes of one protocol message
MAX_DEPTH = 400  # nesting of one value
MAX_NODES = 4_000_000  # containers and scalars in one value


class Deadline(BaseException):
    """A time limit passed (BaseException: "except Exception" in a program does not swallow it)."""


def _alarm(signum, frame):
    raise Deadline()


# Time limits are CPU time of the process that runs the program (a loaded machine stretches wall time, not CPU
# time), with a wall-clock backstop of WALL_FACTOR times the limit for programs that sleep or block.
WALL_FACTOR = 10
_CLK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_of(pid):
    """CPU seconds (user + system, its reaped children included) of a process, from /proc; None if unreadable."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            s = f.read()
        rest = s[s.rindex(b")") + 2:].split()
        return (int(rest[11]) + int(rest[12]) + int(rest[13]) + int(rest[14])) / _CLK
    except (OSError, ValueError, IndexError):
        return None


def wall_limit(cpu_s):
    return max(WALL_FACTOR * cpu_s, cpu_s + 2.0)


class ProtocolError(Exception):
    """A message or value that does not follow the protocol."""


class Channel:
    """Newline-delimited JSON over a pair of pipe file descriptors."""

    def __init__(self, rfd, wfd):
        self.rfd, self.wfd, self.buf = rfd, wfd, bytearray()

    def send(self, obj):
        data = (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode("ascii")
        view = memoryview(data)
        while view:
            view = view[os.write(self.wfd, view):]

    def recv(self, deadline=None):
        """The next message, or None at end of file. TimeoutError once "deadline" (time.monotonic()) passes."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[: i + 1]
                try:
                    return json.loads(line)
                except (ValueError, RecursionError) as e:
                    raise ProtocolError("unreadable message: %s" % (e,))
            if len(self.buf) > MAX_LINE:
                raise ProtocolError("message over %d bytes" % MAX_LINE)
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
                    raise TimeoutError()
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk


# Wire values: JSON, where an object is always a tag with one key:
#   {"$tuple": [...]}, {"$set": [...]}, {"$frozenset": [...]}, {"$float": "nan" | "inf" | "-inf"}, {"$int": "123"},
#   {"$dict": [[k, v], ...]}, {"$bytes": "<base64>"}, {"$complex": [re, im]}, {"$counter": [[k, v], ...]},
#   {"$odict": [[k, v], ...]}, {"$deque": [...]}, {"$obj": i} (entry i of the message's object table: a plain data
#   object, {"type": name, "attrs": [[name, value], ...]}), {"$undefined": true} (JavaScript), {"$h": n} (a handle).


class NotWire(Exception):
    """A value with no wire form (a function, an object with its own comparison or truth methods, ...)."""


_MAGIC = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__len__", "__hash__", "__abs__",
          "__sub__", "__rsub__", "__add__", "__radd__", "__mul__", "__rmul__", "__truediv__", "__float__", "__int__",
          "__index__", "__iter__", "__getitem__", "__contains__", "__round__", "__neg__", "__pos__", "__mod__", "__pow__",
          "__complex__", "__and__", "__or__", "__xor__", "__invert__", "__floordiv__", "__matmul__")


def _plain_data(x):
    """A program-defined object whose class has no special methods but __init__: sent as its attributes."""
    t = type(x)
    if t.__module__ == "builtins" or not hasattr(x, "__dict__") or not isinstance(x.__dict__, dict):
        return False
    for c in t.__mro__[:-1]:
        if any(m in c.__dict__ for m in _MAGIC):
            return False
    return True


def to_wire(value, handles=None):
    """(wire value, object table) for a Python value. Raises NotWire."""
    objs, index, todo, nodes = [], {}, [], [0]

    def enc(x, depth):
        nodes[0] += 1
        if nodes[0] > MAX_NODES:
            raise NotWire("a value of more than %d parts" % MAX_NODES)
        if depth > MAX_DEPTH:
            raise NotWire("a value nested deeper than %d" % MAX_DEPTH)
        t = type(x)
        if x is None or t is bool or t is str:
            return x
        if t is int:
            return x
        if t is float:
            if x != x:
                return {"$float": "nan"}
            if x in (math.inf, -math.inf):
                return {"$float": "inf" if x > 0 else "-inf"}
            return x
        d = depth + 1
        if t is list:
            return [enc(y, d) for y in x]
        if t is tuple:
            return {"$tuple": [enc(y, d) for y in x]}
        if t is dict or t is defaultdict:
            return {"$dict": [[enc(k, d), enc(v, d)] for k, v in x.items()]}
        if t is set:
            return {"$set": [enc(y, d) for y in x]}
        if t is frozenset:
            return {"$frozenset": [enc(y, d) for y in x]}
        if t is Counter:
            return {"$counter": [[enc(k, d), enc(v, d)] for k, v in x.items()]}
        if t is OrderedDict:
            return {"$odict": [[enc(k, d), enc(v, d)] for k, v in x.items()]}
        if t is deque:
            return {"$deque": [enc(y, d) for y in x]}
        if t is bytes:
            return {"$bytes": base64.b64encode(x).decode("ascii")}
        if t is complex:
            return {"$complex": [enc(x.real, d), enc(x.imag, d)]}
        if handles is not None and id(x) in handles:
            return {"$h": handles[id(x)]}
        # Subclasses of the builtin types travel as their base type (a namedtuple as a tuple, an IntEnum as an int).
        if isinstance(x, bool):
            return bool(x)
        if isinstance(x, int):
            return int.__index__(x)
        if isinstance(x, float):
            return enc(float.__float__(x), depth)
        if isinstance(x, str):
            return str.__str__(x)
        if isinstance(x, tuple):
            return {"$tuple": [enc(y, d) for y in tuple.__iter__(x)]}
        if isinstance(x, list):
            return [enc(y, d) for y in list.__iter__(x)]
        if isinstance(x, dict):
            return {"$dict": [[enc(k, d), enc(v, d)] for k, v in dict.items(x)]}
        if _plain_data(x):
            key = id(x)
            if key not in index:
                index[key] = len(objs)
                objs.append(None)
                todo.append(x)
            return {"$obj": index[key]}
        raise NotWire("a value of type %s" % t.__name__)

    root = enc(value, 0)
    while todo:  # data objects breadth-first, so that a long linked list is not a deep value
        x = todo.pop(0)
        objs[index[id(x)]] = {"type": type(x).__name__, "attrs": [[str(k), enc(v, 1)] for k, v in list(x.__dict__.items()) if isinstance(k, str)]}
    return root, objs


class DataObject:
    """An object the program returned, rebuilt from its attributes: equal only to itself, always true."""

    __slots__ = ("_rk_type", "_rk_attrs")

    def __init__(self, type_name):
        object.__setattr__(self, "_rk_type", type_name)
        object.__setattr__(self, "_rk_attrs", {})

    def __getattr__(self, name):
        attrs = object.__getattribute__(self, "_rk_attrs")
        if name in attrs:
            return attrs[name]
        raise AttributeError("%r object (from the program) has no attribute %r" % (object.__getattribute__(self, "_rk_type"), name))

    def __setattr__(self, name, value):
        object.__getattribute__(self, "_rk_attrs")[name] = value

    def __repr__(self):
        return "<%s object from the program>" % object.__getattribute__(self, "_rk_type")


class _Undefined:
    __slots__ = ()

    def __repr__(self):
        return "undefined"


UNDEFINED = _Undefined()
_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def from_wire(value, objs=(), js=False, handle=None):
    """A wire value (as json.loads read it) as a plain Python value; js: JavaScript meaning ($tuple is a list).
    Raises ProtocolError for anything that is not a well-formed wire value."""
    built = []
    for spec in objs:  # every object first, empty, so that references between them need no recursion
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str) or not isinstance(spec.get("attrs"), list):
            raise ProtocolError("bad object")
        built.append(DataObject(spec["type"]))

    def pairs(x, d):
        if not isinstance(x, list) or not all(isinstance(p, list) and len(p) == 2 for p in x):
            raise ProtocolError("bad pairs")
        return [(dec(k, d), dec(v, d)) for k, v in x]

    def obj(i):
        if type(i) is not int or not 0 <= i < len(built):
            raise ProtocolError("bad object reference")
        return built[i]

    def dec(x, d):
        if d > MAX_DEPTH + 2:
            raise ProtocolError("nested too deep")
        t = type(x)
        if x is None or t in (bool, int, float, str):
            return x
        if t is list:
            return [dec(y, d + 1) for y in x]
        if t is not dict or len(x) != 1:
            raise ProtocolError("an object that is not a tag")
        k, v = next(iter(x.items()))
        try:
            if k == "$tuple":
                items = [dec(y, d + 1) for y in v]
                return items if js else tuple(items)
            if k == "$set":
                return set(dec(y, d + 1) for y in v)
            if k == "$frozenset":
                return frozenset(dec(y, d + 1) for y in v)
            if k == "$float":
                return _FLOATS[v]
            if k == "$int":
                if type(v) is not str:
                    raise ProtocolError("bad $int")
                return int(v)
            if k == "$dict":
                return dict(pairs(v, d + 1))
            if k == "$counter":
                return Counter(dict(pairs(v, d + 1)))
            if k == "$odict":
                return OrderedDict(pairs(v, d + 1))
            if k == "$deque":
                return deque(dec(y, d + 1) for y in v)
            if k == "$bytes":
                return base64.b64decode(v, validate=True)
            if k == "$complex":
                re_, im = dec(v[0], d + 1), dec(v[1], d + 1)
                if not all(type(z) in (int, float) for z in (re_, im)):
                    raise ProtocolError("bad $complex")
                return complex(re_, im)
            if k == "$obj":
                return obj(v)
            if k == "$undefined" and js:
                return UNDEFINED
            if k == "$h" and handle is not None and type(v) is int:
                return handle(v)
        except ProtocolError:
            raise
        except (TypeError, ValueError, KeyError, IndexError) as e:
            raise ProtocolError("bad %s: %s" % (k, e))
        raise ProtocolError("unknown tag %r" % (k,))

    root = dec(value, 0)
    for o, spec in zip(built, objs):
        attrs = object.__getattribute__(o, "_rk_attrs")
        for p in spec["attrs"]:
            if not isinstance(p, list) or len(p) != 2 or not isinstance(p[0], str):
                raise ProtocolError("bad attribute")
            attrs[p[0]] = dec(p[1], 1)
    return root


# Reference values (trusted): the tagged JSON of "encoding: json", or Python literals as repr() writes them.
_LITERAL_NAMES = {"nan": math.nan, "inf": math.inf, "set": set, "frozenset": frozenset, "Counter": Counter, "OrderedDict": OrderedDict, "deque": deque}


def literal(text):
    """A Python literal as written by repr(): tuples, sets, dicts, bytes, complex, nan and inf included.
    Only for the reference's own literals (the judge never evaluates text that a program produced)."""
    return eval(compile(text, "<case>", "eval"), {"__builtins__": {}}, dict(_LITERAL_NAMES))


def decode_reference(v, js=False):
    """A reference's JSON value ({"$tuple": ...} tags; plain objects are dicts) as a Python value."""
    if isinstance(v, list):
        return [decode_reference(x, js) for x in v]
    if isinstance(v, dict):
        if len(v) == 1:
            k, x = next(iter(v.items()))
            if k == "$tuple":
                items = [decode_reference(y, js) for y in x]
                return items if js else tuple(items)
            if k == "$set":
                return set(decode_reference(y, js) for y in x)
            if k == "$frozenset":
                return frozenset(decode_reference(y, js) for y in x)
            if k == "$float":
                return float(x)
            if k == "$int":
                return int(x)
            if k == "$dict":
                return {decode_reference(a, js): decode_reference(b, js) for a, b in x}
            if k == "$bytes":
                return base64.b64decode(x)
            if k == "$complex":
                return complex(x[0], x[1])
        return {k: decode_reference(x, js) for k, x in v.items()}
    return v


def show(v):
    """A short description of a value for a failure message, cheap even for huge integers."""
    if isinstance(v, int) and v.bit_length() > 4000:
        return "an integer of about %d digits" % int(v.bit_length() * 0.30103)
    try:
        return repr(v)[:120]
    except BaseException:
        return "a %s" % type(v).__name__


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _close(out, exp, atol):
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


def same(out, exp, atol):
    """Python equality on trusted plain values, except that NaN equals NaN and floats may differ by "atol" (plus
    1e-7 relative when atol > 0); lists and tuples compare element-wise and must be of the same type."""
    if _is_number(out) and _is_number(exp):
        return _close(out, exp, atol)
    if type(out) is not type(exp):
        if isinstance(out, bool) or isinstance(exp, bool) or not (isinstance(out, (list, tuple)) and isinstance(exp, (list, tuple))):
            return out == exp
        return False
    if isinstance(out, (list, tuple)):
        return len(out) == len(exp) and all(same(a, b, atol) for a, b in zip(out, exp))
    if isinstance(out, dict):
        return out.keys() == exp.keys() and all(same(out[k], exp[k], atol) for k in exp)
    return out == exp


def same_js(out, exp, atol):
    """JavaScript meaning: numbers by value (NaN equals NaN, "atol"), booleans only equal booleans, arrays
    element-wise, Sets by members, objects by keys and values, undefined only equals undefined."""
    if _is_number(out) and _is_number(exp):
        return _close(out, exp, atol)
    if isinstance(out, bool) or isinstance(exp, bool) or out is None or exp is None or out is UNDEFINED or exp is UNDEFINED:
        return out is exp or (type(out) is bool and type(exp) is bool and out == exp)
    if isinstance(out, list) and isinstance(exp, list):
        return len(out) == len(exp) and all(same_js(a, b, atol) for a, b in zip(out, exp))
    if isinstance(out, (set, frozenset)) and isinstance(exp, (set, frozenset)):
        return out == exp
    if isinstance(out, dict) and isinstance(exp, dict):
        return out.keys() == exp.keys() and all(same_js(out[k], exp[k], atol) for k in exp)
    if isinstance(out, str) and isinstance(exp, str):
        return out == exp
    return False


def _listify(v):
    if isinstance(v, (list, tuple)):
        return [_listify(x) for x in v]
    return v


def same_taco(out, exp, atol):
    """TACO / APPS call-based tests (verl, deepcoder): tuples are lists, and an expected list of one element also
    matches that element (the datasets wrap return values in a list)."""
    out = _listify(out)
    if same(out, exp, atol):
        return True
    return isinstance(exp, list) and len(exp) >= 1 and same(out, exp[0], atol)


COMPARE = {"python": same, "javascript": same_js, "taco": same_taco}


def normalize_lines(text):
    """stdout without carriage returns, trailing spaces of every line and trailing blank lines."""
    lines = [l.rstrip() for l in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _token_equal(a, b, atol, rtol):
    if a == b:
        return True
    if atol <= 0 and rtol <= 0:
        return False
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
        return False
    return abs(x - y) <= atol + rtol * abs(y)


def same_stdout(out, exp, how, atol, rtol):
    """Compares a program's stdout with the expected one: "lines" (trailing spaces and trailing blank lines do not
    count) or "tokens" (whitespace-separated tokens; numbers within atol + rtol·|expected| when either is set)."""
    if how == "tokens":
        a, b = out.split(), exp.split()
        return len(a) == len(b) and all(_token_equal(x, y, atol, rtol) for x, y in zip(a, b))
    a, b = normalize_lines(out), normalize_lines(exp)
    if atol <= 0 and rtol <= 0:
        return a == b
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        p, q = x.split(), y.split()
        if len(p) != len(q) or not all(_token_equal(s, t, atol, rtol) for s, t in zip(p, q)):
            return False
    return True
`;
