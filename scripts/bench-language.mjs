// Accuracy of the language identifiers on short texts (`npm run bench:language`, after a build).
// Texts: sentences of IFEval (test/fixtures/ifeval): the prompts (written in English) are `en`; the GPT-4 responses to
// `language:response_language` prompts that Google's checker says are in the asked language carry that language.
// Split by prompt key: even keys = development part, odd keys = held-out part. Prints accuracy per length bucket
// (code points) for `eld` and `langdetect`, and for the `language` verifier (share of target words >= 0.5).
// BENCH_SMOKE=1 (test/bench-smoke.test.ts): every 10th sentence; the last line is `smoke: agree (…)` when both
// identifiers name the labelled language of ≥ 90 % of the sentences over 100 characters, else `smoke: DISAGREE (…)`
// and exit 1. No speed is judged.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { detector } from "../dist/verifiers/language/detectors.js";
import { languageShare } from "../dist/verifiers/language/index.js";

const F = new URL("../test/fixtures/ifeval/", import.meta.url);
const gz = (n) =>
  gunzipSync(readFileSync(new URL(n, F)))
    .toString("utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
const inputs = new Map(gz("input_data.jsonl.gz").map((x) => [x.prompt, x]));
const verdicts = gz("gpt4_eval_results_strict.jsonl.gz");

const sentences = (t) =>
  t
    .split(/(?<=[.!?।؟。])\s+|\n+/u)
    .map((s) => s.trim())
    .filter((s) => /\p{L}/u.test(s));
const texts = [];
for (const x of inputs.values())
  for (const s of sentences(x.prompt)) texts.push({ part: x.key % 2 ? "held-out" : "dev", lang: "en", text: s });
for (const v of verdicts) {
  const x = inputs.get(v.prompt);
  const j = x.instruction_id_list.indexOf("language:response_language");
  if (j < 0 || !v.follow_instruction_list[j]) continue;
  for (const s of sentences(v.response))
    texts.push({ part: x.key % 2 ? "held-out" : "dev", lang: x.kwargs[j].language, text: s });
}

const SMOKE = process.env.BENCH_SMOKE === "1";
if (SMOKE) texts.splice(0, texts.length, ...texts.filter((_, i) => i % 10 === 0));

const buckets = [
  ["1-20", 1, 20],
  ["21-50", 21, 50],
  ["51-100", 51, 100],
  [">100", 101, Infinity],
];
const eld = await detector("eld");
const langdetect = await detector("langdetect");
const methods = {
  eld: (t) => eld(t.text) === t.lang,
  langdetect: (t) => langdetect(t.text) === t.lang,
  "language (eld)": (t) => (languageShare(t.text, t.lang, eld)?.share ?? 0) >= 0.5,
};
for (const part of ["dev", "held-out"]) {
  const rows = texts.filter((t) => t.part === part);
  const langs = new Set(rows.filter((t) => t.lang !== "en").map((t) => t.lang));
  console.log(
    `\n${part}: ${rows.length} sentences (${rows.filter((t) => t.lang === "en").length} en, ${rows.length - rows.filter((t) => t.lang === "en").length} in ${langs.size} other languages)`,
  );
  console.log(`| method | ${buckets.map(([b]) => `${b} chars`).join(" | ")} | all |`);
  console.log(`|---|${buckets.map(() => "---").join("|")}|---|`);
  for (const [name, ok] of Object.entries(methods)) {
    const cell = (rs) => (rs.length ? `${((100 * rs.filter(ok).length) / rs.length).toFixed(1)}% (${rs.length})` : "-");
    const len = (t) => [...t.text].length;
    console.log(
      `| ${name} | ${buckets.map(([, lo, hi]) => cell(rows.filter((t) => len(t) >= lo && len(t) <= hi))).join(" | ")} | ${cell(rows)} |`,
    );
  }
}
if (SMOKE) {
  const long = texts.filter((t) => [...t.text].length > 100);
  const acc = (name) => long.filter(methods[name]).length / long.length;
  const sides = ["eld", "langdetect"].map((n) => `${n} ${(100 * acc(n)).toFixed(1)} %`).join(", ");
  const ok = long.length > 0 && acc("eld") >= 0.9 && acc("langdetect") >= 0.9;
  console.log(
    `smoke: ${ok ? "agree" : "DISAGREE"} (labelled language of ${long.length} sentences over 100 chars: ${sides})`,
  );
  if (!ok) process.exitCode = 1;
}
