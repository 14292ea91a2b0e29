#!/usr/bin/env node
// Scores Berkeley Function-Calling Leaderboard results with rewardkit's `tool-call` verifier and prints agreement with
// BFCL's own verdicts per category as JSON:
//   node scripts/bfcl.mjs --data <dir with BFCL_v4_<cat>.json[.gz] and possible_answer/> --results <dir> [--scores <dir>]
// A result entry `{id, result: [{"<function>": "<JSON args>"}]}` becomes a rollout whose completion is an OpenAI
// assistant message with those tool_calls; the reference is the possible-answer list, passed as JSON text so that
// BFCL's int/float distinction survives. Ids absent from the score file are BFCL-valid. Categories without a result
// file are skipped. Needs `npm run build` first.
import { existsSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createScorer, parseSpec } from "../dist/index.js";

const { values: a } = parseArgs({
  options: { data: { type: "string" }, results: { type: "string" }, scores: { type: "string" } },
});
if (!a.data || !a.results) {
  console.error("usage: node scripts/bfcl.mjs --data <dir> --results <dir> [--scores <dir>]");
  process.exit(2);
}
function lines(base) {
  const p = existsSync(base) ? base : existsSync(`${base}.gz`) ? `${base}.gz` : undefined;
  if (!p) return undefined;
  const buf = readFileSync(p);
  const text = p.endsWith(".gz") ? gunzipSync(buf).toString("utf8") : buf.toString("utf8");
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => l);
}
const CATS = [
  "simple_python",
  "simple_java",
  "simple_javascript",
  "multiple",
  "parallel",
  "parallel_multiple",
  "irrelevance",
  "live_simple",
  "live_multiple",
  "live_parallel",
  "live_parallel_multiple",
  "live_irrelevance",
];
const language = (c) =>
  c.includes("java") && !c.includes("javascript") ? "java" : c.includes("javascript") ? "javascript" : "python";
const out = {};
for (const cat of CATS) {
  const results = lines(join(a.results, `BFCL_v4_${cat}_result.json`));
  const questions = lines(join(a.data, `BFCL_v4_${cat}.json`));
  if (!results || !questions) continue;
  const q = new Map(
    questions.map((l) => {
      const r = JSON.parse(l);
      return [r.id, r];
    }),
  );
  const answers = new Map(
    (lines(join(a.data, "possible_answer", `BFCL_v4_${cat}.json`)) ?? []).map((l) => [JSON.parse(l).id, l]),
  );
  let failed;
  if (a.scores) {
    const s = lines(join(a.scores, `BFCL_v4_${cat}_score.json`));
    if (s) failed = new Set(s.slice(1).map((l) => JSON.parse(l).id));
  }
  const spec = parseSpec(
    JSON.stringify({
      name: `bfcl-${cat}`,
      components: [
        { name: "call", type: "tool-call", language: language(cat), validateSchema: false, toolsField: "functions" },
      ],
    }),
    `bfcl-${cat}.json`,
  );
  const scorer = createScorer(spec, { concurrency: 1 });
  let n = 0,
    agree = 0;
  const disagreements = [];
  for (const l of results) {
    const r = JSON.parse(l);
    const question = q.get(r.id);
    if (!question) continue;
    const gt = cat.includes("irrelevance") ? "[]" : answers.get(r.id); // the answer line as text: {"id", "ground_truth"}
    if (gt === undefined) continue;
    let completion;
    if (Array.isArray(r.result) && r.result.every((x) => x && typeof x === "object" && !Array.isArray(x))) {
      const calls = r.result.flatMap((x) =>
        Object.entries(x).map(([name, args], i) => ({
          id: `call_${i}`,
          type: "function",
          function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
        })),
      );
      completion = [
        { role: "assistant", content: calls.length ? null : "", ...(calls.length ? { tool_calls: calls } : {}) },
      ];
    } else completion = typeof r.result === "string" ? r.result : JSON.stringify(r.result);
    const rollout = { id: r.id, group: r.id, completion, reference: gt, functions: question.function };
    const {
      results: [v],
    } = await scorer.score(rollout);
    const ours = v.score === 1;
    n++;
    if (failed === undefined) continue;
    const theirs = !failed.has(r.id);
    if (ours === theirs) agree++;
    else
      disagreements.push({
        id: r.id,
        bfcl: theirs ? "valid" : "invalid",
        rewardkit: ours ? "valid" : "invalid",
        errorType: v.details?.errorType ?? null,
      });
  }
  await scorer.close();
  out[cat] = failed === undefined ? { n } : { n, agree, agreement: n ? agree / n : null, disagreements };
}
console.log(JSON.stringify(out, null, 1));
