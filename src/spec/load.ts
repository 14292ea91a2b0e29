import { readFileSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, resolve } from "node:path";
import { isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import type { Document } from "yaml";
import { compileSpec } from "./compile.js";
import { formatPath, SpecError } from "./errors.js";
import { jsonSyntaxProblems } from "./issues.js";
import type { Problem } from "./errors.js";
import type { CompiledSpec } from "./types.js";

/**
 * Finds the source position of `path` in the document: the key of a map entry (so `weight: heavy` points at
 * `weight`), else the node itself, else its deepest existing parent.
 */
export function locate(doc: Document, lc: LineCounter, path: PropertyKey[]): { line?: number; col?: number } {
  for (let k = path.length; k >= 0; k--) {
    const parent =
      k === 0 ? undefined : k === 1 ? doc.contents : doc.getIn(path.slice(0, k - 1) as (string | number)[], true);
    const pair = isMap(parent) ? parent.items.find((p) => isScalar(p.key) && p.key.value === path[k - 1]) : undefined;
    const node =
      pair && isNode(pair.key)
        ? pair.key
        : k === 0
          ? doc.contents
          : doc.getIn(path.slice(0, k) as (string | number)[], true);
    if (isNode(node) && node.range) {
      const { line, col } = lc.linePos(node.range[0]);
      return { line, col };
    }
  }
  return {};
}

/** Throws a located SpecError when `text` is not strict JSON. */
export function strictJson(text: string, file: string): void {
  const problems = jsonSyntaxProblems(text);
  if (problems.length > 0) throw new SpecError(problems.map((p) => ({ file, ...p, path: "" })));
}

/** Component options naming a file (`templateFile`) are relative to the spec: made absolute here, before validation reads them. */
export function resolveFileOptions(data: unknown, file: string): void {
  const components = (data as { components?: unknown } | null)?.components;
  if (!Array.isArray(components)) return;
  for (const c of components) {
    const tf = (c as { templateFile?: unknown } | null)?.templateFile;
    if (typeof tf === "string" && tf !== "" && !isAbsolute(tf))
      (c as { templateFile: string }).templateFile = resolve(dirname(file), tf);
  }
}

/**
 * Parses and validates a spec from text (YAML 1.2, which includes JSON).
 * @param text the spec source.
 * @param file the name used in error messages and as the default spec name.
 * @throws {SpecError} with every problem found, each naming file, line, column and field path.
 */
export function parseSpec(text: string, file: string): CompiledSpec {
  // YAML 1.2 reads JSON, but leniently (a trailing comma passes): a .json file must be strict JSON.
  if (extname(file).toLowerCase() === ".json") strictJson(text, file);
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new SpecError(
      doc.errors.map((e) => {
        const { line, col } = lc.linePos(e.pos[0]);
        return { file, line, col, path: "", message: e.message.split("\n")[0]! } satisfies Problem;
      }),
    );
  }
  const data: unknown = doc.toJS();
  if (data !== null && typeof data === "object" && "routes" in data) {
    // a routed spec is several specs: src/spec/routes.ts compiles it (loadAnySpec); this entry point takes one
    throw new SpecError([
      {
        file,
        ...locate(doc, lc, ["routes"]),
        path: "routes",
        message:
          "this spec routes rollouts to sub-specs: score it with rewardkit score / serve / check, or load it with loadAnySpec (this command takes a single spec)",
      },
    ]);
  }
  resolveFileOptions(data, file);
  const result = compileSpec(data, basename(file, extname(file)), { baseDir: dirname(resolve(file)) });
  if ("spec" in result) return result.spec;
  const problems: Problem[] = result.issues.map((i) => ({
    file,
    ...locate(doc, lc, i.path),
    path: formatPath(i.path),
    message: i.message,
  }));
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0)); // in reading order
  throw new SpecError(problems);
}

/**
 * Reads, parses and validates a spec file (`.yaml`, `.yml` or `.json`).
 * @throws {SpecError} when the file cannot be read or the spec is invalid.
 */
export function loadSpec(path: string): CompiledSpec {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new SpecError([
      {
        file: path,
        path: "",
        message: `cannot read spec: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      },
    ]);
  }
  return parseSpec(text, path);
}
