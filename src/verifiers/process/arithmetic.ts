import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";

/**
 * Rewrites the arithmetic notations of model solutions into plain `+ - * / ( )` over decimal numbers: LaTeX
 * `\times \cdot \div \frac{a}{b}`, Unicode `× ÷ − ·`, `3 x 4`, thousands separators `1,200`, math delimiters and
 * currency `$` dropped. Anything else is left alone (and so ends an equation).
 */
export function normalizeArithmetic(text: string): string {
  return (
    text
      .replace(/\\(?:text|mathrm|textbf|mbox)\s*\{[^{}]*\}/g, " w ") // a word: a unit or a name
      .replace(/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "(($1)/($2))")
      .replace(/\\(?:times|cdot|ast)(?![A-Za-z])/g, "*")
      .replace(/\\div(?![A-Za-z])/g, "/")
      .replace(/\\(?:left|right)(?![A-Za-z])/g, "")
      .replace(/\\[()[\]]|\\\\/g, ";") // math delimiters and line breaks end an equation
      .replace(/\\[,;!: ]/g, "")
      .replace(/[×✕∗·⋅]/g, "*")
      .replace(/÷/g, "/")
      .replace(/[−–]/g, "-")
      .replace(/\$/g, " ")
      .replace(/(\d)\s*x\s*(?=\d)/g, "$1*")
      .replace(/(\d),(?=\d{3}(?!\d))/g, "$1")
      // a unit word right after a number before an operator: `4 pounds + 4 pounds = 8 pounds`
      .replace(/(\d)[ \t]+[A-Za-z]+(?:\/[A-Za-z]+)?(?=[ \t]*[+\-*/])/g, "$1")
      // … and before `=` when an operator precedes the number: `2 books * 2 pounds/book = 4` (not `400 degrees = 20 + 8`)
      .replace(/(?<=[+\-*/][ \t]*\(?[ \t]*\d[\d.]*)[ \t]+[A-Za-z]+(?:\/[A-Za-z]+)?(?=[ \t]*=)/g, "")
      // a full stop ends an equation: "… is 800. 5 * 800 = 4000"
      .replace(/\.(?=\s|$)/g, ";")
  );
}

/** A recursive-descent evaluator of `+ - * / ( )` over decimals; `undefined` for anything that is not one expression. */
export function evaluate(expr: string): number | undefined {
  const s = expr.replace(/\s+/g, "");
  let i = 0;
  const num = (): number | undefined => {
    const m = /^\d+(?:\.\d+)?|^\.\d+/.exec(s.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return Number(m[0]);
  };
  const factor = (): number | undefined => {
    if (s[i] === "-") {
      i++;
      const f = factor();
      return f === undefined ? undefined : -f;
    }
    if (s[i] === "(") {
      i++;
      const v = sum();
      if (v === undefined || s[i] !== ")") return undefined;
      i++;
      return v;
    }
    return num();
  };
  const product = (): number | undefined => {
    let v = factor();
    while (v !== undefined && (s[i] === "*" || s[i] === "/")) {
      const op = s[i++];
      const r = factor();
      if (r === undefined) return undefined;
      v = op === "*" ? v * r : v / r;
    }
    return v;
  };
  function sum(): number | undefined {
    let v = product();
    while (v !== undefined && (s[i] === "+" || s[i] === "-")) {
      const op = s[i++];
      const r = product();
      if (r === undefined) return undefined;
      v = op === "+" ? v + r : v - r;
    }
    return v;
  }
  const v = sum();
  return v !== undefined && i === s.length && Number.isFinite(v) ? v : undefined;
}

/** One checked equation: its text, and whether both sides agree. */
export interface CheckedEquation {
  text: string;
  holds: boolean;
}

const CHAIN = /[\d. \t+\-*/()=]+/g;
/** What may not touch an equation (no space between): a variable, power, subscript, percent or bracket makes it a fragment. */
const BAD_BEFORE = /[\w.^_%\\)\]}]$/;
const BAD_AFTER = /^[\w^_%\\({[]/;

/** Decimal places of a plain number (`3.50` → 2), undefined for an expression. */
function decimals(part: string): number | undefined {
  const m = /^-?\d+(?:\.(\d+))?$/.exec(part.trim());
  return m ? (m[1]?.length ?? 0) : undefined;
}

/**
 * Finds the equations `e₁ = e₂ (= e₃ …)` of plain arithmetic in a text and checks each `=`: both sides are evaluated
 * and must agree, up to the rounding of a side written as a plain number with d decimals (± 0.5·10^−d). A chain
 * must contain an operator (`x = 5` says nothing), must not touch a letter, power, percent or unit on either end
 * (`2x + 3 = 7`, `3^2 + 4 = 13` are not checked) and every side must parse.
 */
export function checkEquations(text: string): CheckedEquation[] {
  const t = normalizeArithmetic(text);
  const out: CheckedEquation[] = [];
  for (const m of t.matchAll(CHAIN)) {
    const raw = m[0];
    const start = m.index + (raw.length - raw.trimStart().length);
    const chain = raw.trim();
    if (!chain.includes("=")) continue;
    const before = t.slice(0, start);
    const after = t.slice(start + chain.length);
    // touching a variable, power, percent, bracket or LaTeX command: not plain arithmetic (`2x + 3 = 7`, `3^2 + 4 = 13`)
    if (BAD_BEFORE.test(before) || BAD_AFTER.test(after)) continue;
    if (/\\[A-Za-z]+\s*$/.test(before) || /^\s*\\[A-Za-z]/.test(after)) continue; // \lfloor 36/5 \rfloor, \sqrt 16 …
    const parts = chain.split("=");
    // the first side belongs to the words before it when it starts with an operator (`Age - 4 = 10 - 4`), is empty
    // (`5 pairs = 5 * 2`) or is a bare number after a word (`heat up to 400 degrees = 20 + 8`); likewise the last side
    if (
      /^(?:[+*/]|-\s)/.test(chain) ||
      parts[0]!.trim() === "" ||
      (/\w\s*$/.test(before) && decimals(parts[0]!) !== undefined)
    )
      parts.shift();
    if (/[+\-*/]$/.test(chain) || parts[parts.length - 1]?.trim() === "") parts.pop();
    if (
      parts.length < 2 ||
      parts.some((p) => p.trim() === "") ||
      !parts.some((p) => /[+\-*/]/.test(p.trim().replace(/^-/, "")))
    )
      continue;
    const values = parts.map(evaluate);
    if (values.some((v) => v === undefined)) continue;
    for (let k = 0; k + 1 < parts.length; k++) {
      const a = values[k]!;
      const b = values[k + 1]!;
      // a side written as a plain number with d > 0 decimals may be rounded (± 0.5·10^−d); otherwise exact (1e-9 relative)
      const d = Math.max(-1, ...[decimals(parts[k]!), decimals(parts[k + 1]!)].map((x) => (x === undefined ? -1 : x)));
      const tol = d > 0 ? 0.5 * 10 ** -d + 1e-9 : 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
      // a division written as a whole number is a deliberate floor/ceil/round ("36/5 = 7 full pens")
      const rounded = decimals(parts[k + 1]!) === 0 && parts[k]!.includes("/") && Math.abs(a - b) < 1;
      const holds = Math.abs(a - b) <= tol || rounded;
      out.push({ text: `${parts[k]!.trim()} = ${parts[k + 1]!.trim()}`.replace(/\s+/g, " "), holds });
    }
  }
  return out;
}

const options = z.strictObject({});

/**
 * `arithmetic`: 1 when every plain-arithmetic equation the text writes holds, 0 when one does not (the failures
 * are in `details.failed`). A step checker for the `process` component (`stepVerifier: {type: arithmetic}`), in
 * the spirit of GSM8K's calculator annotations: it finds arithmetic slips, not wrong reasoning. A text with no
 * checkable equation scores 1 with `details.checked = 0` ("no slip found"), so on its own it is NOT an outcome
 * reward (a policy that writes no equations gets 1): use it per step, or gated on a real outcome.
 */
export const arithmeticVerifier: VerifierDefinition<Record<string, never>> = {
  type: "arithmetic",
  summary:
    "1 if every plain-arithmetic equation in the text holds (a step checker for process components), 0 if one does not",
  options,
  isolation: "inline",
  defaultTimeoutMs: 1000,
  create() {
    return ({ completion }) => {
      if (completion.trim() === "") return unscorable("no_completion");
      const eqs = checkEquations(completion);
      const failed = eqs.filter((e) => !e.holds).map((e) => e.text);
      return failed.length > 0
        ? ok(0, "wrong_answer", { checked: eqs.length, failed })
        : ok(1, undefined, { checked: eqs.length });
    };
  },
};
