"""Math-Verify doing what `rewardkit score` does, for the whole-process comparison of `npm run bench:math`.

Usage: python3 bench/math-verify-score.py ROLLOUTS.jsonl OUT.jsonl [--loop]
Reads rollouts (`completion`, `reference`), verifies each with Math-Verify's defaults —
`verify(parse(gold), parse(completion))`, the gold written `$reference$` as its README asks for LaTeX golds (a
reference with `$` or `\\boxed` already is parsed as it is) — and writes one JSON line per rollout: the row with
`reward` (1.0 or 0.0) added. Math-Verify's per-call timeouts are off (they need signals in the main thread and
the rewardkit side has its own deadlines only in workers). With `--loop`, prints the scoring loop's seconds (from
the first parse to the last verdict, imports and file reading excluded; wall and CPU) as one JSON line on stdout.
Needs `math_verify` and `latex2sympy2_extended` importable (PYTHONPATH).
"""
import json
import sys
import time

from math_verify import parse, verify

args = [a for a in sys.argv[1:] if not a.startswith("--")]
rows = [json.loads(line) for line in open(args[0], encoding="utf-8") if line.strip()]
t0 = time.perf_counter()
c0 = time.process_time()
for r in rows:
    ref = str(r["reference"])
    gold = parse(ref if "$" in ref or "\\boxed" in ref else f"${ref}$", parsing_timeout=None)
    pred = parse(r["completion"], parsing_timeout=None)
    r["reward"] = 1.0 if verify(gold, pred, timeout_seconds=None) else 0.0
loop = time.perf_counter() - t0
loop_cpu = time.process_time() - c0
with open(args[1], "w", encoding="utf-8") as out:
    for r in rows:
        out.write(json.dumps(r) + "\n")
if "--loop" in sys.argv:
    print(json.dumps({"loop_s": loop, "cpu_s": loop_cpu, "n": len(rows), "correct": sum(r["reward"] for r in rows)}))
