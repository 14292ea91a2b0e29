/**
 * Plain-text math to LaTeX, for answers written without LaTeX (`pi/2`, `-2*pi`, `sqrt(2)/2`, `exp(16)-1`,
 * `x**2`, `2^(n+1)`, `abs(x)`): function calls with balanced parentheses become commands, `pi` / `inf`
 * become `\pi` / `\infty`, `*` becomes `\cdot`. A name preceded by a backslash or a letter is left alone
 * (`\pi`, `\sqrt{2}`, `spin`). Linear apart from the balanced-parenthesis scans (bounded: 32 calls).
 */

/** Index of the `)` closing the `(` at `open`, or -1. */
function closeParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

const CALL_RE = /(?<![\\a-zA-Z])(sqrt|cbrt|exp|abs)\s*\(/;
const FUNCS_RE = /(?<![\\a-zA-Z])(ln|log|sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|sinh|cosh|tanh)(?=\s*\(|\s+\w)/g;

/**
 * Rewrites the plain-text math of `s` as LaTeX (see the module comment); LaTeX input comes back unchanged.
 * @example plainTextMath("sqrt(2)/2") // "\\sqrt{2}/2"
 * @example plainTextMath("-2*pi") // "-2\\cdot \\pi "
 */
export function plainTextMath(s: string): string {
  if (!/[a-z*]/.test(s)) return s;
  let t = s.replace(/\*\*/g, "^");
  for (let guard = 0; guard < 32; guard++) {
    const m = CALL_RE.exec(t);
    if (!m) break;
    const open = m.index + m[0].length - 1;
    const close = closeParen(t, open);
    if (close < 0) break;
    const inner = t.slice(open + 1, close);
    const name = m[1];
    const rep =
      name === "sqrt"
        ? `\\sqrt{${inner}}`
        : name === "cbrt"
          ? `\\sqrt[3]{${inner}}`
          : name === "exp"
            ? `e^{${inner}}`
            : `|${inner}|`;
    t = t.slice(0, m.index) + rep + t.slice(close + 1);
  }
  t = t.replace(/(?<![\\a-zA-Z])sqrt\s*(\d+)/g, "\\sqrt{$1}");
  t = t.replace(FUNCS_RE, "\\$1");
  t = t.replace(/(?<![\\a-zA-Z])pi(?![a-zA-Z])/g, "\\pi ");
  t = t.replace(/(?<![\\a-zA-Z])(?:inf|infinity|oo)(?![a-zA-Z])/g, "\\infty ");
  // `2^(n+1)` is `2^{(n+1)}`: a parenthesized exponent is one group
  for (let guard = 0; guard < 16; guard++) {
    const at = t.indexOf("^(");
    if (at < 0) break;
    const close = closeParen(t, at + 1);
    if (close < 0) break;
    t = `${t.slice(0, at)}^{${t.slice(at + 1, close + 1)}}${t.slice(close + 1)}`;
  }
  // `*` between two operands is a product (`z^*` and `3 + * 4` keep their star)
  return t.replace(/(?<=[\w)}.]\s*)\*(?=\s*[\w(\\{.-])/g, "\\cdot ");
}
