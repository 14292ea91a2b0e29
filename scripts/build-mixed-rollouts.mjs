#!/usr/bin/env node
// Builds examples/data/mixed-rollouts.jsonl: one mixed batch for examples/routing.yaml (routes by `data_source`),
// from data already bundled in the repo plus a few BFCL questions and one model's real answers.
//   node scripts/build-mixed-rollouts.mjs [--bfcl ../shared/data/bfcl-v4-ast]
// SOURCE notes: examples/data/SOURCE.md ("mixed-rollouts.jsonl").
import { readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const arg = process.argv.indexOf("--bfcl");
const bfcl = arg > 0 ? process.argv[arg + 1] : join(root, "../shared/data/bfcl-v4-ast");
const jsonl = (p) =>
  readFileSync(p, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const gz = (p) =>
  gunzipSync(readFileSync(p))
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const out = [];

// math: the 8 responses of each of the first two problems whose responses the peer grader splits (Qwen2.5-Math
// rollouts; reference = the gold answer string)
const math = jsonl(join(root, "examples/data/math-rollouts.jsonl"));
const mixedGroups = [...new Set(math.map((r) => r.group))]
  .filter((g) => new Set(math.filter((r) => r.group === g).map((r) => r.labels.peer_correct)).size > 1)
  .slice(0, 2);
for (const r of math) if (mixedGroups.includes(r.group)) out.push({ ...r, data_source: "math" });

// code: two HumanEval tasks, the canonical solution and a stub that returns None, as a group of two
for (const r of jsonl(join(root, "examples/data/humaneval.jsonl")).slice(0, 2)) {
  out.push({ ...r, id: `${r.id}/canonical`, data_source: "code" });
  out.push({
    ...r,
    id: `${r.id}/stub`,
    data_source: "code",
    completion: "```python\ndef " + r.reference.entryPoint + "(*args, **kwargs):\n    return None\n```",
  });
}

// json: four JSON-Schema-Test-Suite documents; the schema moves to labels.schema (read with `reference: labels.schema`)
const suite = jsonl(join(root, "examples/data/json-schema-suite.jsonl"));
for (const id of [
  "draft2020-12/required.json/0/0",
  "draft2020-12/required.json/0/1",
  "draft2020-12/required.json/0/2",
  "draft2020-12/required.json/0/4",
]) {
  const r = suite.find((x) => x.id === id);
  if (!r) throw new Error(`json-schema-suite.jsonl has no ${id}`);
  const { reference, ...rest } = r;
  out.push({ ...rest, data_source: "json", reference: null, labels: { ...r.labels, schema: reference } });
}

// ifeval: four GPT-4 responses with the verdict of Google's checker (strict) in labels.google_strict
const inputs = new Map(gz(join(root, "test/fixtures/ifeval/input_data.jsonl.gz")).map((r) => [r.prompt, r]));
for (const v of gz(join(root, "test/fixtures/ifeval/gpt4_eval_results_strict.jsonl.gz")).slice(0, 4)) {
  const q = inputs.get(v.prompt);
  out.push({
    id: `ifeval-${q.key}`,
    group: `ifeval-${q.key}`,
    data_source: "ifeval",
    prompt: v.prompt,
    completion: v.response,
    reference: { instruction_id_list: q.instruction_id_list, kwargs: q.kwargs },
    labels: { google_strict: v.follow_all_instructions },
  });
}

// tool: BFCL simple_python questions 0-4 and 13 (a type error) and irrelevance 3 (no call) and 4 (a call), answered by glyphh-ada-1.1, as
// OpenAI tool_calls; labels.bfcl_valid = BFCL's own verdict (its score files list the failures)
// the tools as an OpenAI `tools` list would carry them, but in BFCL's own type dialect (`float`, `dict`, `tuple`), which
// the tool-call verifier reads as BFCL does (a JSON Schema `number` would let `[1, 3]` pass where BFCL wants floats)
const tools = (q) =>
  q.function.map((f) => ({
    type: "function",
    function: { name: f.name, description: f.description, parameters: f.parameters },
  }));
const call = (result) => [
  {
    role: "assistant",
    content: null,
    tool_calls: (Array.isArray(result) ? result : []).map((d, i) => {
      const [name, args] = Object.entries(d)[0];
      return {
        id: `call_${i}`,
        type: "function",
        function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
      };
    }),
  },
];
for (const [cat, ids] of [
  ["simple_python", [0, 1, 2, 3, 4, 13]],
  ["irrelevance", [3, 4]],
]) {
  const qs = new Map(gz(join(bfcl, `data/BFCL_v4_${cat}.json.gz`)).map((r) => [r.id, r]));
  // the possible answers as JSON text (a string reference keeps BFCL's `1.0` a float: parsed, it would be the int 1)
  const ansText =
    cat === "irrelevance"
      ? []
      : gunzipSync(readFileSync(join(bfcl, `data/possible_answer/BFCL_v4_${cat}.json.gz`)))
          .toString("utf8")
          .split("\n")
          .filter(Boolean);
  const ans = new Map(ansText.map((l) => [JSON.parse(l).id, /"ground_truth":\s*(.*)}\s*$/.exec(l)[1]]));
  const res = new Map(gz(join(bfcl, `glyphh-ada-1.1/result/BFCL_v4_${cat}_result.json.gz`)).map((r) => [r.id, r]));
  const failed = new Set(
    gz(join(bfcl, `glyphh-ada-1.1/score/BFCL_v4_${cat}_score.json.gz`))
      .slice(1)
      .map((r) => r.id),
  );
  for (const n of ids) {
    const id = `${cat}_${n}`;
    const q = qs.get(id);
    const result = res.get(id).result;
    out.push({
      id,
      group: id,
      data_source: "tool",
      prompt: q.question[0],
      tools: tools(q),
      completion: Array.isArray(result) ? call(result) : String(result),
      reference: cat === "irrelevance" ? [] : ans.get(id),
      labels: { bfcl_valid: !failed.has(id) },
    });
  }
}

// trivia: no route of its own: the default route (exact match) scores it
out.push({
  id: "trivia-1",
  group: "trivia-1",
  data_source: "trivia",
  prompt: "What is the capital of France? Answer with one word.",
  completion: "Paris",
  reference: "Paris",
});
out.push({
  id: "trivia-2",
  group: "trivia-1",
  data_source: "trivia",
  prompt: "What is the capital of France? Answer with one word.",
  completion: "Lyon",
  reference: "Paris",
});

writeFileSync(join(root, "examples/data/mixed-rollouts.jsonl"), out.map((r) => JSON.stringify(r)).join("\n") + "\n");
process.stderr.write(`examples/data/mixed-rollouts.jsonl: ${out.length} rollouts\n`);
