/**
 * Answer rewrites into the shapes `compare.ts` compares, for forms that state a shape indirectly:
 * groups of assignments as tuples (`m=3,n=1;m=4,n=1` → `(3,1),(4,1)`), absolute-value inequalities as
 * unions of intervals (`2\leq|t|\leq5` → `[-5,-2]\cup[2,5]`) and matrix arithmetic evaluated entry by
 * entry (`A + B`, `A B`, `A \cdot B`). Each returns its input unchanged when the form does not apply.
 */
import { splitTop } from "./split.js";

const NAME = String.raw`[a-zA-Z](?:_\{?\w+\}?)?|\\[a-zA-Z]+`;
const ASSIGN_ITEM_RE = new RegExp(`^(${NAME})=([^=]+)$`);

/**
 * Groups of assignments, each naming the same variables in the same order, are a list of tuples:
 * `p=5,q=2;p=7,q=2` → `(5,2),(7,2)`; also with commas only (`p=5,q=2,p=7,q=2`, from `… \text{and} …`).
 */
export function assignmentTuples(s: string): string {
  if (!s.includes("=") || !(s.includes(";") || s.includes(","))) return s;
  const items = splitTop(s, ";")
    .flatMap((g) => splitTop(g, ","))
    .map((x) => ASSIGN_ITEM_RE.exec(x.trim()));
  if (items.length < 4 || items.some((m) => m === null)) return s;
  const names = items.map((m) => (m as RegExpExecArray)[1] ?? "");
  const k = names.indexOf(names[0] as string, 1);
  if (k < 2 || names.length % k !== 0 || new Set(names.slice(0, k)).size !== k) return s;
  for (let i = k; i < names.length; i++) if (names[i] !== names[i % k]) return s;
  const tuples: string[] = [];
  for (let i = 0; i < items.length; i += k)
    tuples.push(
      `(${items
        .slice(i, i + k)
        .map((m) => (m as RegExpExecArray)[2] ?? "")
        .join(",")})`,
    );
  return tuples.join(",");
}

const BOUND = String.raw`\d+(?:\.\d+)?|\\frac\{\d+\}\{\d+\}|\d+/\d+`;
const ABS_TWO_RE = new RegExp(String.raw`^(${BOUND})(<|\\leq)\|(${NAME})\|(<|\\leq)(${BOUND})$`);
const ABS_ONE_RE = new RegExp(String.raw`^\|(${NAME})\|(<|>|\\leq|\\geq)(${BOUND})$`);

/**
 * An inequality on an absolute value with numeric bounds as intervals: `a \leq |t| \leq b` →
 * `[-b,-a]\cup[a,b]` (one interval `[-b,b]` when `a` is 0 and included), `|t| < b` → `(-b,b)`,
 * `|t| \geq b` → `(-\infty,-b]\cup[b,\infty)`.
 */
export function absoluteInequality(s: string): string {
  if (!s.includes("|") || s.length > 200) return s;
  const two = ABS_TWO_RE.exec(s);
  if (two) {
    const [, a = "", o1 = "", , o2 = "", b = ""] = two;
    const [lo, hi] = [o1 === "<" ? "(" : "[", o2 === "<" ? ")" : "]"];
    const flip = (c: string) => (c === "(" ? ")" : c === "[" ? "]" : c === ")" ? "(" : "[");
    if (/^0(?:\.0+)?$/.test(a))
      return o1 === "<" ? `${flip(hi)}-${b},0)\\cup(0,${b}${hi}` : `${flip(hi)}-${b},${b}${hi}`;
    return `${flip(hi)}-${b},-${a}${flip(lo)}\\cup${lo}${a},${b}${hi}`;
  }
  const one = ABS_ONE_RE.exec(s);
  if (one) {
    const [, , o = "", b = ""] = one;
    const strict = o === "<" || o === ">";
    if (o === "<" || o === "\\leq") return strict ? `(-${b},${b})` : `[-${b},${b}]`;
    return strict ? `(-\\infty,-${b})\\cup(${b},\\infty)` : `(-\\infty,-${b}]\\cup[${b},\\infty)`;
  }
  return s;
}

const ENV_RE = /\\begin\{([pbBvV]?matrix)\}([\s\S]*?)\\end\{\1\}/g;

function rowsOf(body: string): string[][] {
  return splitTop(body.trim(), "\\\\")
    .map((r) => r.trim())
    .filter((r) => r !== "")
    .map((r) => splitTop(r, "&").map((c) => c.trim()));
}

/**
 * Sums, differences and products of matrices written out (`\begin{pmatrix}…\end{pmatrix} + \begin{pmatrix}…
 * \end{pmatrix}`, juxtaposed or with `\cdot` / `\times` for a product) as one matrix whose entries are the
 * arithmetic of the operands' entries (`(1)+(2)`, `(2)\cdot(1)+(0)\cdot(0)`), compared entry by entry as
 * usual. Shapes that do not conform leave the input unchanged.
 */
export function matrixArithmetic(s: string): string {
  if (s.length > 4000 || s.indexOf("\\begin{") === s.lastIndexOf("\\begin{")) return s;
  const mats: { rows: string[][]; start: number; end: number; env: string }[] = [];
  ENV_RE.lastIndex = 0;
  for (let m = ENV_RE.exec(s); m !== null; m = ENV_RE.exec(s))
    mats.push({ rows: rowsOf(m[2] ?? ""), start: m.index, end: m.index + m[0].length, env: m[1] ?? "pmatrix" });
  if (mats.length < 2 || (mats[0]?.start ?? 1) !== 0 || mats[mats.length - 1]?.end !== s.length) return s;
  const ops: string[] = [];
  for (let k = 1; k < mats.length; k++) {
    const between = s.slice((mats[k - 1] as { end: number }).end, (mats[k] as { start: number }).start).trim();
    if (between === "" || between === "\\cdot" || between === "\\times" || between === "*") ops.push("*");
    else if (between === "+" || between === "-") ops.push(between);
    else return s;
  }
  const square = (r: string[][]) => r.length > 0 && r.every((row) => row.length === (r[0] as string[]).length);
  if (!mats.every((m) => square(m.rows))) return s;
  // products first, then sums and differences, left to right
  const terms: { rows: string[][]; sign: string }[] = [{ rows: (mats[0] as { rows: string[][] }).rows, sign: "+" }];
  for (let k = 1; k < mats.length; k++) {
    const b = (mats[k] as { rows: string[][] }).rows;
    const op = ops[k - 1] as string;
    if (op === "*") {
      const last = terms[terms.length - 1] as { rows: string[][] };
      const a = last.rows;
      const inner = (a[0] as string[]).length;
      if (inner !== b.length) return s;
      last.rows = a.map((row) =>
        (b[0] as string[]).map((_, j) => row.map((x, i) => `(${x})\\cdot(${(b[i] as string[])[j] ?? ""})`).join("+")),
      );
    } else terms.push({ rows: b, sign: op });
  }
  const first = terms[0] as { rows: string[][] };
  const h = first.rows.length;
  const w = (first.rows[0] as string[]).length;
  if (!terms.every((t) => t.rows.length === h && (t.rows[0] as string[]).length === w)) return s;
  const out = first.rows.map((row, i) =>
    row.map((_, j) => terms.map((t, k) => `${k === 0 ? "" : t.sign}(${(t.rows[i] as string[])[j] ?? ""})`).join("")),
  );
  const env = (mats[0] as { env: string }).env;
  return `\\begin{${env}}${out.map((r) => r.join("&")).join("\\\\")}\\end{${env}}`;
}
