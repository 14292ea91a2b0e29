"""Math-Verify on the same pairs as `npm run bench:math`, for a side-by-side rate on one core.

Usage: python3 bench/math-verify-peer.py PAIRS.jsonl   (each line: {"completion": ..., "reference": ...})
Needs `math_verify` and `latex2sympy2_extended` importable (PYTHONPATH); prints one JSON line:
{"rate": samples/s, "n": pairs, "correct": pairs judged equal, "agree": agreement with `label` when the rows
have one, "seconds": wall time}. Each pair is
`verify(parse(gold), parse(completion))` with Math-Verify's defaults, the gold written `$reference$` as its
README asks for LaTeX golds (a reference that has `$` or `\boxed` already is parsed as it is), timed after a
warm-up of 20 pairs
(imports and sympy caches are not counted; Math-Verify's own per-call timeout is disabled, as in one thread).
"""
import json
import sys
import time

from math_verify import parse, verify

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
for r in rows:
    ref = str(r["reference"])
    r["reference"] = ref if "$" in ref or "\\boxed" in ref else f"${ref}$"
for r in rows[:20]:
    verify(parse(r["reference"], parsing_timeout=None), parse(r["completion"], parsing_timeout=None), timeout_seconds=None)
t0 = time.perf_counter()
correct = 0
agree = 0
for r in rows:
    g = parse(r["reference"], parsing_timeout=None)
    p = parse(r["completion"], parsing_timeout=None)
    ok = bool(verify(g, p, timeout_seconds=None))
    correct += ok
    agree += ok == bool(r.get("label", ok))
dt = time.perf_counter() - t0
print(json.dumps({"rate": round(len(rows) / dt), "n": len(rows), "correct": correct, "agree": agree, "seconds": round(dt, 2)}))
