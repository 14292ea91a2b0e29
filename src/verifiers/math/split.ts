/** Splits `s` at top-level occurrences of `sep` (outside (), [], {}, \{\} and \begin..\end). */
export function splitTop(s: string, sep: string): string[] {
  if (!s.includes(sep)) return [s]; // most calls: nothing to split (and no loop to run)
  const out: string[] = [];
  let depth = 0;
  let env = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === "\\") {
      if (s.startsWith("\\begin", i)) env++;
      else if (s.startsWith("\\end", i)) env--;
      else if (s[i + 1] === "{" || s[i + 1] === "}") {
        depth += s[i + 1] === "{" ? 1 : -1;
        i++;
        continue;
      }
      if (depth === 0 && env === 0 && s.startsWith(sep, i) && !/[a-zA-Z]/.test(s[i + sep.length] ?? "")) {
        out.push(s.slice(start, i));
        start = i + sep.length;
        i += sep.length - 1;
      }
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (depth === 0 && env === 0 && s.startsWith(sep, i)) {
      out.push(s.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(s.slice(start));
  return out;
}
