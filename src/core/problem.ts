/** One problem found in a spec or an input file, located as precisely as the source allows. */
export interface Problem {
  file: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column, when known. */
  col?: number;
  /** Field path like `components[1].weight` (empty for the whole document). */
  path: string;
  message: string;
}

/** Formats a problem as `file:line:col path: message`. */
export function formatProblem(p: Problem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}${p.col !== undefined ? `:${p.col}` : ""}` : p.file;
  return p.path ? `${where} ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/** Formats a path (`["components", 1, "weight"]`) as `components[1].weight`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const k of path) {
    if (typeof k === "number") out += `[${k}]`;
    else out += out ? `.${String(k)}` : String(k);
  }
  return out;
}
