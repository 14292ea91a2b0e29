/**
 * 1 MB texts of many shapes for the linear-time check of math extraction (`npm run stress:math`): every
 * answer anchor followed by a long run of one unit (`The answer is aaaa…`, `A: $$$$…`, `\boxed{1111…`), long
 * runs of single tokens (`{`, `\frac{`, `$1 `, `1,`, `\approx `, line breaks, `<think>`), and texts whose stated
 * answer (42) is at the very end after 1 MB of prose, math spans or money.
 */

/** One shape: its name, its text and whether it must score 1 against the gold `42`. */
export interface Shape {
  name: string;
  text: string;
  right: boolean;
}

const ANCHORS = [
  "The answer is ",
  "the final answer is ",
  "Final Answer:\n",
  "**Final Answer**\n",
  "Answer: ",
  "A: ",
  "#### ",
  "答案是 ",
  "【答案】",
  "la réponse est ",
  "Réponse : ",
  "\\boxed{",
  "$",
  "\\(",
  "$$",
  "\\[",
  "<answer>",
];
const UNITS = ["a", "1", "$", "x=", " ", "ab'", "\\frac{"];
const RUNS = [
  "{",
  "\\frac{",
  "\\left(",
  "$1 ",
  "1,",
  "\\approx ",
  "\n",
  "<think>",
  "the correct answer is C ",
  "A: 1\n",
  "answer ",
  "$x$",
  "2,7",
  "\\begin{pmatrix}",
];

/** The shapes, each `bytes` long (default 1 MiB). */
export function megabyteShapes(bytes = 1 << 20): Shape[] {
  const fill = (unit: string, head = "", tail = "") => {
    const n = bytes - head.length - tail.length;
    return head + unit.repeat(Math.ceil(n / unit.length)).slice(0, n) + tail;
  };
  const out: Shape[] = [];
  for (const a of ANCHORS)
    for (const u of UNITS)
      out.push({ name: `${JSON.stringify(a)} + ${JSON.stringify(u)}*`, text: fill(u, a), right: false });
  for (const u of RUNS) out.push({ name: `${JSON.stringify(u)}*`, text: fill(u), right: false });
  out.push({ name: "prose … The answer is 42.", text: fill("lorem ipsum ", "", "\nThe answer is 42."), right: true });
  out.push({ name: "$x$ spans … The answer is 42.", text: fill("$x$ and ", "", "\nThe answer is 42."), right: true });
  out.push({ name: "money … A: 42", text: fill("$3 each, so 2 * 3 = $6. ", "", "\nA: 42"), right: true });
  out.push({
    name: "\\(y\\) spans … \\boxed{42}",
    text: fill("\\(y\\) ", "", "\nSo the answer is \\boxed{42}."),
    right: true,
  });
  out.push({
    name: "GSM8K lines … A: 42",
    text: fill("She sold 48/2 = <<48/2=24>>24 clips.\n", "", "A: 42"),
    right: true,
  });
  return out;
}
