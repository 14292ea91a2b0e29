#!/usr/bin/env python3
"""Builds the code-verifier example data from the shared HumanEval, HumanEval+ and MBPP+ snapshots.

  /usr/bin/python3 scripts/build-code-data.py [--data ../shared/data] [--out examples/data]

Writes humaneval.jsonl, humanevalplus.jsonl, mbppplus.jsonl (one rollout per task whose completion is the
canonical solution in a fenced Python block) and code-mutants.jsonl (one automatically mutated solution per
HumanEval and MBPP+ task). Expected outputs of EvalPlus inputs are computed here by running the canonical
solution (trusted dataset code) in a child process, one per task, with PYTHONHASHSEED=0 as in the sandbox.
Cases the canonical solution cannot answer (it raises, takes over --case-limit seconds, or returns a value
that has no exact Python-literal form) are dropped and counted in build-code-data.drops.txt.
"""
import argparse, ast, copy, gzip, hashlib, json, math, os, re, subprocess, sys, time

CHILD = r'''
import copy, json, math, sys, time, signal
# Integers longer than the case cap cannot be kept anyway; the cap makes repr() of huge ones fail fast.
sys.set_int_max_str_digits(8192)
class _T(BaseException): pass
def _alarm(*_): raise _T()
signal.signal(signal.SIGALRM, _alarm)
job = json.loads(sys.stdin.read())
ns = {"__name__": "__rk_canonical__"}
exec(compile(job["code"], "canonical.py", "exec"), ns)
fn = ns[job["entry"]]
from collections import Counter, OrderedDict
NAMES = {"nan": float("nan"), "inf": float("inf"), "set": set, "frozenset": frozenset, "Counter": Counter, "OrderedDict": OrderedDict}
def lit(t):
    return eval(t, {"__builtins__": {}}, dict(NAMES))
def same(a, b):
    if type(a) is not type(b): return False
    if isinstance(a, float): return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, (list, tuple)): return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict): return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b
out = []
for text_in in job["inputs"]:
    rec = None
    try:
        args = lit(text_in)
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, job["limit"])
        try:
            got = fn(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        dt = time.perf_counter() - t0
        if type(got).__name__ == "Match" and type(got).__module__ == "re":
            # A regex "check" (Mbpp/737, /787, /794): the test is its truth value, as MBPP's own asserts are.
            rec = {"input": text_in, "output": "True", "s": dt, "truthy": True}
        else:
            text_out = repr(got)
            if not same(lit(text_out), got): raise ValueError("output has no literal form")
            rec = {"input": text_in, "output": text_out, "s": dt}
    except _T:
        rec = {"drop": "slow"}
    except BaseException as e:
        rec = {"drop": type(e).__name__}
    out.append(rec)
sys.stdout.write(json.dumps(out))
'''


def with_helpers(prompt, entry, test):
    """The test code, preceded by the prompt's own helpers that it calls (HumanEval/32 poly, /38 encode_cyclic,
    /50 encode_shift) and the prompt's imports: the test runs in the trusted judge, so a helper the program
    redefines (a poly that is always 0) must not be the one the test checks the candidate with."""
    tree = ast.parse(test)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    p = ast.parse(prompt)
    helpers = [n for n in p.body if isinstance(n, ast.FunctionDef) and n.name != entry and n.name in used]
    if not helpers:
        return test
    imports = [n for n in p.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    return "\n".join(ast.get_source_segment(prompt, n) for n in imports + helpers) + "\n\n" + test


def read_gz(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def fenced(code):
    return "```python\n" + code.rstrip("\n") + "\n```"


def tuple_params(contract, params):
    """Parameters the EvalPlus contract requires to be tuples (top level), or lists of tuples."""
    top, inner = set(), set()
    for p in params:
        if re.search(r"isinstance\(\s*%s\s*,\s*tuple\s*\)" % re.escape(p), contract):
            top.add(p)
        if re.search(r"isinstance\(\s*\w+\s*,\s*tuple\s*\)\s*for\s+\w+\s+in\s+%s\b" % re.escape(p), contract):
            inner.add(p)
    return top, inner


def to_tuples(v):
    return tuple(to_tuples(x) for x in v) if isinstance(v, list) else v


def shape_inputs(inputs, contract, params):
    top, inner = tuple_params(contract or "", params)
    # A task whose contract speaks of complex numbers stores numbers as strings ("1j", "0"): read them back.
    cplx = set(params) if re.search(r"isinstance\([^)]*complex", contract or "") else set()
    # A contract with a recursive helper (def tuple_check ...) wants nested tuples all the way down.
    deep = "def " in (contract or "")
    if not top and not inner and not cplx:
        return inputs
    shaped = []
    for args in inputs:
        args = list(args)
        for i, p in enumerate(params[: len(args)]):
            if p in top and isinstance(args[i], list):
                args[i] = to_tuples(args[i]) if deep else tuple(args[i])
            elif p in inner and isinstance(args[i], list):
                args[i] = [tuple(x) if isinstance(x, list) else x for x in args[i]]
            if p in cplx and isinstance(args[i], str):
                try:
                    v = ast.literal_eval(args[i])
                    if isinstance(v, (int, float, complex)) and not isinstance(v, bool):
                        args[i] = v
                except (ValueError, SyntaxError):
                    pass
        shaped.append(args)
    return shaped


def entry_params(code, entry):
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            return [a.arg for a in node.args.args]
    return []


def input_texts(inputs):
    """repr() of each argument list, or None where the repr does not read back as the same value."""
    helpers = {}
    exec("import math\nfrom collections import Counter, OrderedDict\n" + CHILD[CHILD.index("NAMES ="):CHILD.index("out = []")], helpers)
    texts = []
    for args in inputs:
        t = repr(list(args))
        try:
            texts.append(t if helpers["same"](helpers["lit"](t), list(args)) else None)
        except Exception:
            texts.append(None)
    return texts


def _limit_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _child(code, entry, inputs, case_limit, timeout):
    env = dict(os.environ, PYTHONHASHSEED="0")
    job = json.dumps({"code": code, "entry": entry, "inputs": inputs, "limit": case_limit}, allow_nan=True)
    try:
        r = subprocess.run(["/usr/bin/python3", "-c", CHILD], input=job, capture_output=True, text=True, env=env, timeout=timeout, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(r.stdout) if r.returncode == 0 else None


def expected_outputs(code, entry, inputs, case_limit, task_limit):
    """One child per task; when it dies or hangs (a call stuck in C code that SIGALRM cannot interrupt, or a
    memory blow-up), one child per input, and the inputs that still fail are dropped."""
    res = _child(code, entry, inputs, case_limit, task_limit)
    if res is not None:
        return res
    out = []
    for text in inputs:
        one = _child(code, entry, [text], case_limit, case_limit * 3 + 2)
        out.append(one[0] if one else {"drop": "killed"})
    return out


def plus_rows(tasks, name, code_of, completion_of, args, log):
    rows, dropped, slow_total = [], 0, 0.0
    for t in tasks:
        code = code_of(t)
        entry = t["entry_point"]
        inputs = [x for k in ("base_input", "plus_input") for x in (t[k] if isinstance(t[k], list) else [] if isinstance(t[k], dict) else json.loads(t[k]))]
        inputs = shape_inputs(inputs, t.get("contract", ""), entry_params(code, entry))
        texts = input_texts(inputs)
        res = expected_outputs(code, entry, [t for t in texts if t is not None], args.case_limit, args.task_limit)
        res = [{"drop": "input_not_literal"}] * sum(1 for t in texts if t is None) + res
        cases, drops = [], {}
        for r in res:
            if "drop" not in r and len(r["input"]) + len(r["output"]) > args.max_case_chars:
                r = {"drop": "over_%d_chars" % args.max_case_chars}
            if "drop" in r:
                drops[r["drop"]] = drops.get(r["drop"], 0) + 1
            else:
                cases.append(r)
        # Keep the whole task comfortably inside one sandbox run: drop the slowest cases past the budget.
        budget = args.task_budget
        if sum(c["s"] for c in cases) > budget:
            order = sorted(range(len(cases)), key=lambda i: cases[i]["s"])
            keep, acc = set(), 0.0
            for i in order:
                if acc + cases[i]["s"] > budget:
                    break
                keep.add(i)
                acc += cases[i]["s"]
            drops["over_budget"] = len(cases) - len(keep)
            cases = [c for i, c in enumerate(cases) if i in keep]
        n_drop = sum(drops.values())
        dropped += n_drop
        slow_total += sum(c["s"] for c in cases)
        if n_drop:
            log.write("%s %s: kept %d of %d inputs, dropped %s\n" % (name, t["task_id"], len(cases), len(inputs), drops))
        atol = float(t.get("atol") or 0)
        truthy = any(c.get("truthy") for c in cases)
        if truthy:  # every expected value as its truth value (a None is False)
            cases = [dict(c, output="True" if c.get("truthy") or c["output"] not in ("None", "False", "0", "''", "[]") else "False") for c in cases]
        ref = {"kind": "call", "entryPoint": entry, "encoding": "python", "cases": [{"input": c["input"], "output": c["output"]} for c in cases]}
        if truthy:
            ref["compare"] = "truthy"
        if atol:
            ref["atol"] = atol
        rows.append({"id": t["task_id"], "group": t["task_id"], "prompt": t["prompt"], "completion": completion_of(t), "reference": ref})
        print("%s %s: %d cases (%.2fs canonical)" % (name, t["task_id"], len(cases), sum(c["s"] for c in cases)), file=sys.stderr)
    log.write("%s: %d tasks, %d cases kept, %d dropped, canonical run time %.1fs\n" % (name, len(rows), sum(len(r["reference"]["cases"]) for r in rows), dropped, slow_total))
    return rows


# ---------------------------------------------------------------- mutants

CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
BIN_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}


def mutation_sites(fn):
    """(kind, node, index) for every place a mutation applies inside the function body, in source order."""
    sites = []
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Compare):
                for i, op in enumerate(node.ops):
                    if type(op) in CMP_SWAP:
                        sites.append(("swap-compare", node, i))
            elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in BIN_SWAP:
                sites.append(("swap-operator", node, 0))
            elif isinstance(node, ast.Constant) and type(node.value) is int:
                sites.append(("off-by-one", node, 0))
            elif isinstance(node, ast.Return):
                sites.append(("wrong-return", node, 0))
            elif isinstance(node, ast.BoolOp):
                sites.append(("swap-boolop", node, 0))
    return sites


def apply_mutation(kind, node, i):
    if kind == "swap-compare":
        node.ops[i] = CMP_SWAP[type(node.ops[i])]()
    elif kind == "swap-operator":
        node.op = BIN_SWAP[type(node.op)]()
    elif kind == "off-by-one":
        node.value = node.value + 1
    elif kind == "swap-boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "wrong-return":
        v = node.value
        if isinstance(v, ast.Constant) and isinstance(v.value, bool):
            node.value = ast.Constant(not v.value)
        elif v is None or (isinstance(v, ast.Constant) and v.value is None):
            node.value = ast.Constant(0)
        else:
            node.value = ast.Constant(None)


def mutate(code, entry, task_id):
    """One deterministic mutant: the site is chosen by a hash of the task id among all sites of the entry point
    (MBPP+ solutions with helpers: among all functions)."""
    tree = ast.parse(code)
    fns = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    target = [f for f in fns if f.name == entry] or fns
    sites = [s for f in target for s in mutation_sites(f)]
    if not sites:
        sites = [s for f in fns for s in mutation_sites(f)]
    if not sites:
        return None, None
    k = int(hashlib.sha256(task_id.encode()).hexdigest(), 16) % len(sites)
    kind, node, i = sites[k]
    apply_mutation(kind, node, i)
    return ast.unparse(tree) + "\n", kind


def main():
    sys.set_int_max_str_digits(8192)
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "examples", "data"))
    ap.add_argument("--case-limit", type=float, default=1.0, help="seconds one canonical call may take")
    ap.add_argument("--task-limit", type=float, default=60, help="seconds for all inputs of one task (then one child per input)")
    ap.add_argument("--task-budget", type=float, default=3.0, help="canonical seconds kept per task (slowest cases dropped past it)")
    ap.add_argument("--max-case-chars", type=int, default=8192, help="cases whose input + output literals are longer are dropped (keeps the files small)")
    ap.add_argument("--only", default="", help="comma list of humaneval,humanevalplus,mbppplus,mutants")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    want = lambda n: not only or n in only
    os.makedirs(args.out, exist_ok=True)
    log = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "build-code-data.drops.txt"), "a" if only else "w")

    def write(name, rows):
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")

    he = read_gz(os.path.join(args.data, "humaneval", "HumanEval.jsonl.gz"))
    hep = read_gz(os.path.join(args.data, "humanevalplus", "HumanEvalPlus.jsonl.gz"))
    mbp = read_gz(os.path.join(args.data, "mbppplus", "MbppPlus.jsonl.gz"))
    he_rows = [{"id": t["task_id"], "group": t["task_id"], "prompt": t["prompt"], "completion": fenced(t["prompt"] + t["canonical_solution"]),
                "reference": {"kind": "assert", "entryPoint": t["entry_point"], "test": with_helpers(t["prompt"], t["entry_point"], t["test"])}} for t in he]
    if want("humaneval"):
        write("humaneval.jsonl", he_rows)
    if want("humanevalplus"):
        write("humanevalplus.jsonl", plus_rows(hep, "humanevalplus", lambda t: t["prompt"] + t["canonical_solution"], lambda t: fenced(t["prompt"] + t["canonical_solution"]), args, log))
    if want("mbppplus"):
        write("mbppplus.jsonl", plus_rows(mbp, "mbppplus", lambda t: t["canonical_solution"], lambda t: fenced(t["canonical_solution"]), args, log))
    if want("mutants"):
        mbp_refs = {}
        mbp_path = os.path.join(args.out, "mbppplus.jsonl")
        with open(mbp_path, encoding="utf-8") as f:
            for l in f:
                r = json.loads(l)
                mbp_refs[r["id"]] = r
        rows = []
        for t in he:
            code, kind = mutate(t["prompt"] + t["canonical_solution"], t["entry_point"], t["task_id"])
            if code:
                rows.append({"id": "mutant:" + t["task_id"], "group": t["task_id"], "prompt": t["prompt"], "completion": fenced(code),
                             "reference": {"kind": "assert", "entryPoint": t["entry_point"], "test": with_helpers(t["prompt"], t["entry_point"], t["test"])}, "metadata": {"dataset": "humaneval", "task": t["task_id"], "mutation": kind}})
        for t in mbp:
            code, kind = mutate(t["canonical_solution"], t["entry_point"], t["task_id"])
            if code and t["task_id"] in mbp_refs:
                rows.append({"id": "mutant:" + t["task_id"], "group": t["task_id"], "prompt": t["prompt"], "completion": fenced(code),
                             "reference": mbp_refs[t["task_id"]]["reference"], "metadata": {"dataset": "mbppplus", "task": t["task_id"], "mutation": kind}})
        write("code-mutants.jsonl", rows)
        log.write("mutants: %d rows\n" % len(rows))
    log.close()


if __name__ == "__main__":
    main()
