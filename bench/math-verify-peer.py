"""One fresh process of `npm run bench:math`'s side-by-side: Math-Verify over the same pairs as rewardkit.

Usage: python3 bench/math-verify-peer.py PAIRS.jsonl   (each line: {"completion": ..., "reference": ...})
Needs `math_verify` and `latex2sympy2_extended` importable (PYTHONPATH). Each pair is
`verify(parse(gold), parse(completion))` with Math-Verify's defaults, the gold written `$reference$` as its README
asks for LaTeX golds (a reference that has `$` or `\\boxed` already is parsed as it is); its per-call timeouts are
disabled (they need signals; one thread). Two passes: cold (the first of this process, after the imports) and warm
(the same pairs again after emptying sympy's cache). Prints one JSON line:
{"cold": {"wall": s, "cpu": s}, "warm": {...}, "n": pairs, "correct": pairs judged equal}.
"""
import json
import sys
import time

from math_verify import parse, verify
from sympy.core.cache import clear_cache

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
for r in rows:
    ref = str(r["reference"])
    r["reference"] = ref if "$" in ref or "\\boxed" in ref else f"${ref}$"


def one_pass():
    t0 = time.perf_counter()
    c0 = time.process_time()
    correct = 0
    for r in rows:
        g = parse(r["reference"], parsing_timeout=None)
        p = parse(r["completion"], parsing_timeout=None)
        correct += bool(verify(g, p, timeout_seconds=None))
    return {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}, correct


cold, correct = one_pass()
clear_cache()
warm, _ = one_pass()
print(json.dumps({"cold": cold, "warm": warm, "n": len(rows), "correct": correct}))
