/**
 * The import graph of src/ (static imports, `import type`, re-exports and dynamic `import()`; tests left out) has
 * no cycle between files or between top-level folders, and every arrow points down the layer list of
 * docs/architecture.md (a folder imports only folders listed below it).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";

const SRC = join(ROOT, "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|mts|js|mjs)$/.test(e.name) && !/\.d\.ts$|\.test\.|\.test-helper\./.test(e.name) ? [p] : [];
  });
}

/** Relative import specifiers of a module: `from "…"`, `import "…"`, `import("…")`, comments removed. */
export function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/[^\n]*/g, "$1");
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"']+)\1/g)].map((m) => m[2]!);
}

const files = sources(SRC);
const known = new Set(files);
function resolve(from: string, spec: string): string | undefined {
  const p = normalize(join(dirname(from), spec));
  const cands = [p, p.replace(/\.js$/, ".ts"), p.replace(/\.mjs$/, ".mts"), `${p}.ts`, join(p, "index.ts")];
  return cands.find((c) => known.has(c));
}
const edges = new Map(
  files.map((f) => [f, new Set(specifiers(readFileSync(f, "utf8")).flatMap((s) => resolve(f, s) ?? []))]),
);
const rel = (f: string) => relative(SRC, f);
const folder = (f: string) => (rel(f).includes(sep) ? rel(f).split(sep)[0]! : "(root)");

/** Strongly connected components with more than one node (or a self-loop): the cycles (Tarjan). */
function cycles(adj: Map<string, Set<string>>): string[][] {
  let n = 0;
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    on = new Set<string>(),
    stack: string[] = [],
    out: string[][] = [];
  const go = (v: string): void => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!index.has(w)) {
        go(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      for (let w = ""; w !== v;) {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      }
      if (comp.length > 1 || adj.get(v)?.has(v)) out.push(comp.sort());
    }
  };
  for (const v of adj.keys()) if (!index.has(v)) go(v);
  return out;
}

/** The layer list of docs/architecture.md, bottom first. */
function layers(): string[] {
  const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
  const block = /<!-- layers: top first -->\n```\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error("docs/architecture.md has no layer block");
  return block[1]!
    .split("\n")
    .map((l) => /^\s*(\S+)\//.exec(l)?.[1] ?? /^\s*(\(root\))/.exec(l)?.[1])
    .filter((x): x is string => x !== undefined)
    .reverse();
}

/** The imports (`from -> to`, paths under src/) that point up the layer order (bottom first). */
function upward(pairs: Iterable<[string, string]>, order: readonly string[]): string[] {
  const rank = new Map(order.map((l, i) => [l, i]));
  const top = (p: string) => (p.includes("/") ? p.split("/")[0]! : "(root)");
  return [...pairs]
    .filter(([f, t]) => top(f) !== top(t) && rank.get(top(t))! > rank.get(top(f))!)
    .map(([f, t]) => `${f} -> ${t}`);
}

describe("architecture", () => {
  it("finds the imports of every kind", () => {
    expect(
      specifiers(
        'import a from "./a.js";\nimport type { B } from "../b.js";\nexport * from "./c.js";\nconst d = await import("./d.js");\nimport "./e.js";\n// import "./f.js"\nimport x from "zod";',
      ),
    ).toEqual(["./a.js", "../b.js", "./c.js", "./d.js", "./e.js"]);
  });

  it("no file imports itself through others", () => {
    expect(cycles(edges).map((c) => c.map(rel))).toEqual([]);
  });

  it("no top-level folder of src/ imports itself through others", () => {
    const dirs = new Map<string, Set<string>>();
    for (const [f, ts] of edges)
      for (const t of ts)
        if (folder(f) !== folder(t))
          (dirs.get(folder(f)) ?? dirs.set(folder(f), new Set()).get(folder(f))!).add(folder(t));
    expect(cycles(dirs)).toEqual([]);
  });

  it("every import points down the layer list of docs/architecture.md", () => {
    const order = layers();
    const rank = new Map(order.map((l, i) => [l, i]));
    const unlisted = [...new Set(files.map(folder))].filter((d) => !rank.has(d));
    expect(unlisted, "folders missing from the layer list in docs/architecture.md").toEqual([]);
    const pairs = [...edges].flatMap(([f, ts]) =>
      [...ts].map((t): [string, string] => [rel(f).split(sep).join("/"), rel(t).split(sep).join("/")]),
    );
    expect(upward(pairs, order)).toEqual([]);
    // the rule bites: the core reaching up into the engine is refused
    expect(
      upward(
        [
          ["core/types.ts", "engine/scorer.ts"],
          ["engine/scorer.ts", "core/types.ts"],
        ],
        order,
      ),
    ).toEqual(["core/types.ts -> engine/scorer.ts"]);
  });
});
