#!/usr/bin/env python3
"""Build test/fixtures/lighteval-extractive-cases.jsonl from lighteval's extractive-match test file.

Reads `tests/unit/metrics/test_extractive_match.py` of huggingface/lighteval (MIT) from a bare mirror with
`git show`, parses it with `ast` (nothing of lighteval is imported or run) and writes one JSON line per case of
every `@pytest.mark.parametrize` block: the Python string values as they are (escapes evaluated), the expected
value as a boolean, the test function (`source`), its line, and the non-default helper arguments (`le_options`:
`language`, `match_types`, `precision`). Commented-out cases are not in the AST and are not taken.
`in_math_verify` marks a (gold, pred) pair that is also in math-verify-cases.jsonl (Math-Verify grew out of this file).

The development / evaluation `split` is by test function (SPLIT below), fixed before any case was scored.
`rewardkit_differs` (a documented policy difference) and `rewardkit_miss` (a known gap) come from NOTES below.

    python3 scripts/lighteval-cases.py [lighteval git dir] [commit]

The git dir defaults to `../.mirror/huggingface+lighteval/repo` beside the checkout (where the `fetch` tool puts a
mirror of huggingface/lighteval), or LIGHTEVAL_MIRROR.
"""

import ast
import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEFAULT_REPO = os.environ.get(
    "LIGHTEVAL_MIRROR", os.path.join(ROOT, "..", ".mirror", "huggingface+lighteval", "repo")
)
REPO = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_REPO
COMMIT = sys.argv[2] if len(sys.argv) > 2 else "3fd15266bc8448b797e61462d293aa3fd40b3580"
PATH = "tests/unit/metrics/test_extractive_match.py"
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "test", "fixtures")
OUT = os.path.join(FIXTURES, "lighteval-extractive-cases.jsonl")

# By test function, decided before any case was scored. Development: the multiple-choice blocks (issue 29's kinds),
# numbers, LaTeX answers of MATH solutions, matrices, edge cases, NuminaMath. Evaluation (held out): the non-English
# math blocks, fractions, sets, LaTeX notations, relations, complex expressions, additional cases. Both parts hold
# math blocks and rows that are not in Math-Verify's suite (math-verify-cases.jsonl, which rewardkit was tuned on).
SPLIT = {
    "test_extraction_abc": "dev",
    "test_multilingual_extraction_abc": "dev",
    "test_number_extraction": "dev",
    "test_latex_notation_math": "dev",
    "test_matrix_extraction": "dev",
    "test_math_extraction_edge_cases": "dev",
    "test_math_numina_cases": "dev",
    "test_multilingual_extraction_math": "eval",
    "test_multilingual_extraction_math_latex_numbers": "eval",
    "test_simple_fraction_notation": "eval",
    "test_sets_handling": "eval",
    "test_latex_notation": "eval",
    "test_relations_math": "eval",
    "test_complex_math_expressions": "eval",
    "test_math_extraction_additional_cases": "eval",
}

# Development cases where rewardkit deliberately disagrees (`rewardkit_differs`, a documented policy) or has a known
# gap (`rewardkit_miss`, a false negative, never a false positive), by (test function, line). Only development cases
# are annotated: the evaluation part is measured, never inspected case by case.
SPLIT_BOXES = (
    "a gold of three boxes (`\\boxed{1} and and and or thus but \\boxed{2} and \\boxed{3}`) is the list 1, 2, 3 for "
    "rewardkit; lighteval keeps only the boxes after the last `or`/`but` (2, 3), so it expects `\\boxed{2,3}` to match "
    "and `\\boxed{1,2,3}` not to"
)
NOTES = {
    ("test_math_extraction_edge_cases", 751): (
        "rewardkit_differs",
        "an unanchored response: rewardkit reads its last math span (`d = \\frac{90}{n}`), not a number written later "
        "in the prose (`Therefore, there are 12 distinct …`), docs/math.md §1; as for Math-Verify's copy of the case",
    ),
    ("test_math_numina_cases", 1135): ("rewardkit_differs", SPLIT_BOXES),
    ("test_math_numina_cases", 1140): ("rewardkit_differs", SPLIT_BOXES),
    ("test_math_numina_cases", 1099): (
        "rewardkit_miss",
        "the reference's box is never closed and its backslashes are doubled; `W(n) = 1` and `W(x)=1` name different "
        "variables (a known gap, as in Math-Verify's copy)",
    ),
}

# compare_strings' defaults; a block's own match_types when its test function passes a literal one.
DEFAULT_MATCH = ["latex", "expr"]


def value(node):
    """A literal of the parametrize data: strings, numbers, lists, tuples and `Language.X` (as its lower-case name)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Language":
        return node.attr.lower()
    if isinstance(node, (ast.List, ast.Tuple)):
        return [value(e) for e in node.elts]
    return ast.literal_eval(node)


def match_types_of(fn):
    """The literal `match_types=[...]` a test function passes to compare_strings, or None (then the case gives it)."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "compare_strings":
            for kw in n.keywords:
                if kw.arg == "match_types" and isinstance(kw.value, ast.List):
                    return [value(e) for e in kw.value.elts]
    return None


def main():
    src = subprocess.run(["git", "-C", REPO, "show", f"{COMMIT}:{PATH}"], check=True, capture_output=True).stdout
    tree = ast.parse(src.decode("utf8"))
    with open(os.path.join(FIXTURES, "math-verify-cases.jsonl"), encoding="utf8") as f:
        seen = {(r["gold"], r["pred"]) for r in map(json.loads, f)}
    rows = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        for dec in fn.decorator_list:
            if not (isinstance(dec, ast.Call) and ast.unparse(dec.func) == "pytest.mark.parametrize"):
                continue
            names = [s.strip() for s in value(dec.args[0]).split(",")]
            fixed = match_types_of(fn)
            for tup in dec.args[1].elts:
                case = dict(zip(names, value(tup)))
                opts = {}
                if case.get("language", "english") != "english":
                    opts["language"] = case["language"]
                mt = case.get("match_type", fixed) or DEFAULT_MATCH
                if mt != DEFAULT_MATCH:
                    opts["match_types"] = mt
                if case.get("precision", 6) != 6:
                    opts["precision"] = case["precision"]
                row = {
                    "gold": case["gold"],
                    "pred": case["pred"],
                    "expected": bool(case["expected"]),
                    "source": f"{PATH}:{fn.name}",
                    "line": tup.lineno,
                    "split": SPLIT[fn.name],
                }
                if opts:
                    row["le_options"] = opts
                if (row["gold"], row["pred"]) in seen:
                    row["in_math_verify"] = True
                note = NOTES.get((fn.name, tup.lineno))
                if note:
                    row[note[0]] = note[1]
                rows.append(row)
    with open(OUT, "w", encoding="utf8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    by = {}
    for r in rows:
        by.setdefault((r["split"], r["source"].split(":")[1]), 0)
        by[(r["split"], r["source"].split(":")[1])] += 1
    for k, n in sorted(by.items()):
        print(f"{k[0]:5} {k[1]:50} {n}")
    assert sum(any(k in r for k in ("rewardkit_differs", "rewardkit_miss")) for r in rows) == len(NOTES)
    for part in ("dev", "eval"):
        n = sum(r["split"] == part for r in rows)
        new = sum(r["split"] == part and "in_math_verify" not in r for r in rows)
        print(part, n, "of which not in math-verify-cases.jsonl:", new)


if __name__ == "__main__":
    main()
