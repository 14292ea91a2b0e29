"""verl's local `prime_code` scorer on rollouts from stdin, for `npm run bench:code` (scripts/bench-code.mjs).

argv[1] is a folder holding the package `prime_code` (extracted from a verl checkout at run time; no peer code is
kept in this repository). Each stdin line is {"completion": str, "cases": [{"input": "<Python literal of the
argument list>", "output": "<literal of the value>"}], "fn": name}; the cases are turned into prime_code's
call-based format (one JSON argument per line, JSON output). Prints how many rollouts scored True.
Run with /usr/bin/python3, one process per lane, as verl's reward workers call compute_score in-process.
"""

import ast
import json
import sys

sys.path.insert(0, sys.argv[1])
from prime_code import compute_score  # noqa: E402

passed = 0
for line in sys.stdin:
    r = json.loads(line)
    inputs, outputs = [], []
    for c in r["cases"]:
        try:
            args = ast.literal_eval(c["input"])
            inputs.append("\n".join(json.dumps(a, allow_nan=False) for a in args))
            outputs.append(json.dumps(ast.literal_eval(c["output"]), allow_nan=False))
        except (ValueError, TypeError, SyntaxError):
            continue  # a value JSON cannot hold (a set, nan): prime_code's format has no form for it
    ok, _ = compute_score(r["completion"], {"inputs": inputs, "outputs": outputs, "fn_name": r["fn"]})
    passed += ok is True
print(passed)
