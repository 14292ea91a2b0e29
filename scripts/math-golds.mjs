// Real gold answers for the math corpus builder and the red-team generator: MATH-500 `answer`, the MATH test
// set's last \boxed{} (it has no answer field), and the Qwen2.5-Math eval sets (`answer`, olympiadbench's
// `final_answer` list, minerva's boxed solution). Run `npm run build` first: it uses the verifier's boxed reader.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { lastBoxed } from "../dist/verifiers/math/extract.js";

/** The parsed lines of a JSONL file (`.gz` by extension). */
export function readJsonl(file) {
  const buf = readFileSync(file);
  const text = file.endsWith(".gz") ? gunzipSync(buf).toString("utf8") : buf.toString("utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

/**
 * Distinct gold answers (trimmed text) mapped to the first data set they came from, in a fixed order.
 * @param data the shared data folder (`../shared/data` from the project root).
 */
export function loadGolds(data) {
  const golds = new Map();
  const add = (a, src) => {
    if (typeof a === "number") a = String(a);
    if (typeof a === "string" && a.trim() !== "" && !golds.has(a.trim())) golds.set(a.trim(), src);
  };
  for (const r of readJsonl(join(data, "math500/test.jsonl"))) add(r.answer, "math500");
  for (const r of readJsonl(join(data, "math/test.jsonl.gz"))) add(lastBoxed(r.solution ?? ""), "math");
  const qe = join(data, "qwen25-math-eval");
  for (const d of readdirSync(qe).sort()) {
    for (const f of ["test.jsonl", "test.jsonl.gz"]) {
      let rows;
      try {
        rows = readJsonl(join(qe, d, f));
      } catch {
        continue;
      }
      for (const r of rows) {
        if (r.answer !== undefined) add(r.answer, `qwen25-math-eval/${d}`);
        if (Array.isArray(r.final_answer)) for (const a of r.final_answer) add(a, `qwen25-math-eval/${d}`);
        if (r.solution && d === "minerva_math") add(lastBoxed(r.solution), `qwen25-math-eval/${d}`);
      }
    }
  }
  return golds;
}
