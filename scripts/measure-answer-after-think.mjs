#!/usr/bin/env node
/**
 * Measures the math verifier's `answerAfterThink` (false | true) on the bundled rollouts
 * (examples/data/math-rollouts.jsonl: 100 MATH problems × 8 Qwen2.5-Math responses, each with a peer grader's
 * verdict `labels.peer_correct`), as they are and written the way reasoning models write them:
 *
 *   plain        the rollouts unchanged (no think tags)
 *   think        `<think>{draft}</think>\n\n{final}`: the draft is another response to the same problem (its own
 *                boxed answer included: reasoning models box tentative answers while thinking), the final is the
 *                rollout's response, whose label it keeps
 *   r1-prompt    the same without the opening tag (R1 / Qwen3 templates put `<think>` in the prompt)
 *   unboxed      `<think>{draft}</think>\n\nThe answer is {final's boxed answer, unboxed}.`
 *   bold, bare   `<think>{draft}</think>\n\n**{answer}**` and `…\n\n{answer}`: the final answer without a box
 *   unclosed     `<think>{response}`: cut off inside the think block (the label is kept, though the model never
 *                answered: agreement there counts how often a reasoning guess is credited)
 *
 * For each variant and setting it prints agreement with the labels (and false positives / negatives). Run after
 * `npm run build`: `node scripts/measure-answer-after-think.mjs`. Numbers are in docs/math.md.
 */
import { readFileSync } from "node:fs";
import { createScorer, parseSpec } from "../dist/index.js";

const rows = readFileSync(new URL("../examples/data/math-rollouts.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));
const byGroup = new Map();
for (const r of rows) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r]);
/** The next response of the same group whose peer verdict differs when one exists (a draft that disagrees), else the next one. */
function draftOf(r) {
  const g = byGroup.get(r.group);
  const i = g.indexOf(r);
  for (let k = 1; k < g.length; k++) {
    const d = g[(i + k) % g.length];
    if (d.labels.peer_correct !== r.labels.peer_correct) return d.completion;
  }
  return g[(i + 1) % g.length].completion;
}
function lastBoxed(s) {
  const at = s.lastIndexOf("\\boxed{");
  if (at < 0) return null;
  let depth = 0;
  for (let j = at + 7; j < s.length; j++) {
    if (s[j] === "{") depth++;
    else if (s[j] === "}") {
      if (depth === 0) return s.slice(at + 7, j);
      depth--;
    }
  }
  return null;
}
const variants = {
  plain: (r) => r.completion,
  think: (r) => `<think>${draftOf(r)}</think>\n\n${r.completion}`,
  "r1-prompt": (r) => `${draftOf(r)}</think>\n\n${r.completion}`,
  unboxed: (r) => {
    const b = lastBoxed(r.completion);
    return b === null ? null : `<think>${draftOf(r)}</think>\n\nThe answer is ${b}.`;
  },
  bold: (r) => {
    const b = lastBoxed(r.completion);
    return b === null ? null : `<think>${draftOf(r)}</think>\n\n**${b}**`;
  },
  bare: (r) => {
    const b = lastBoxed(r.completion);
    return b === null ? null : `<think>${draftOf(r)}</think>\n\n${b}`;
  },
  unclosed: (r) => `<think>${r.completion}`, // truncated inside the think block: it never answered
};

const results = [];
for (const setting of [false, true]) {
  const spec = parseSpec(
    `components:\n  - {name: accuracy, type: math, answerAfterThink: ${setting}}\n`,
    "measure.yaml",
  );
  const scorer = createScorer(spec, { concurrency: 2, cacheSize: 0 });
  try {
    for (const [name, make] of Object.entries(variants)) {
      let agree = 0,
        fp = 0,
        fn = 0,
        n = 0,
        unscorable = 0;
      const jobs = rows.map(async (r) => {
        const completion = make(r);
        if (completion === null) return;
        const s = await scorer.score({ id: r.id, group: r.group, completion, reference: r.reference });
        const res = s.results[0];
        n++;
        if (res.score === null) unscorable++;
        const pass = res.score === 1;
        if (pass === r.labels.peer_correct) agree++;
        else if (pass) fp++;
        else fn++;
      });
      await Promise.all(jobs);
      results.push({ variant: name, answerAfterThink: setting, n, agree, fp, fn, unscorable });
    }
  } finally {
    await scorer.close();
  }
}
console.log("variant     answerAfterThink  rollouts  agreement          false+  false-  unscorable");
for (const r of results.sort(
  (a, b) => a.variant.localeCompare(b.variant) || Number(a.answerAfterThink) - Number(b.answerAfterThink),
))
  console.log(
    `${r.variant.padEnd(11)} ${String(r.answerAfterThink).padEnd(17)} ${String(r.n).padStart(8)}  ${`${r.agree}/${r.n} = ${((100 * r.agree) / r.n).toFixed(1)}%`.padEnd(18)} ${String(r.fp).padStart(6)}  ${String(r.fn).padStart(6)}  ${String(r.unscorable).padStart(10)}`,
  );
