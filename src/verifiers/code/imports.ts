/**
 * The top-level modules a Python source imports (`import a.b as c, d` → a, d; `from x.y import z` → x; relative
 * imports are skipped), found line by line, sorted and without duplicates. Textual: an import inside a string or a
 * function body counts too (what a task set *may* import is what the environment must offer).
 *
 * Example: `pythonImports("from sortedcontainers import SortedList\nimport numpy as np, os")` →
 * `["numpy", "os", "sortedcontainers"]`.
 */
export function pythonImports(source: string): string[] {
  const found = new Set<string>();
  for (const line of source.split(/\r?\n|;/)) {
    const from = /^\s*from\s+([A-Za-z_]\w*)(?:\.[\w.]*)?\s+import\b/.exec(line);
    if (from) {
      found.add(from[1]!);
      continue;
    }
    const imp = /^\s*import\s+(.+)$/.exec(line);
    if (!imp) continue;
    for (const part of imp[1]!.replace(/#.*/, "").split(",")) {
      const name = /^\s*([A-Za-z_]\w*)/.exec(part)?.[1];
      if (name) found.add(name);
    }
  }
  return [...found].sort();
}
