/**
 * The JSON-Schema-Test-Suite measurement behind the `json-schema` verifier's choice of library: agreement with
 * the suite's verdicts and compile+validate time for `@hyperjump/json-schema` (through the verifier's own compile
 * path) and for `ajv` (Ajv2020 / Ajv draft-07, one instance per draft, `strict: false`, formats as annotations,
 * remotes added with `addSchema`), on examples/data/json-schema-suite.jsonl (draft2020-12 + draft7 required tests).
 * Prints agreement with and without the `refRemote*` files (the acceptance check skips them) and a time ratio.
 *
 * BENCH_SMOKE=1 (test/bench-smoke.test.ts): the first 200 tests only; the last line is `smoke: agree (…)` when both
 * libraries agree with the suite's verdicts on ≥ 95 % of them (refRemote files left out), else `smoke: DISAGREE (…)`
 * and exit 1. No speed is judged.
 *
 * Run:  npm run bench:json-schema
 * (from the repository root; `dist-check/` is git-ignored scratch output).
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { DIALECTS } from "../src/verifiers/structured/dialects.js";
import { compileSchema } from "../src/verifiers/structured/schema-compiler.js";

interface Row {
  id: string;
  group: string;
  completion: string;
  reference: unknown;
  labels: { valid: boolean };
}
const REMOTES = "examples/data/json-schema-remotes";
const SMOKE = process.env.BENCH_SMOKE === "1";
const rows = readFileSync("examples/data/json-schema-suite.jsonl", "utf8")
  .trim()
  .split("\n")
  .slice(0, SMOKE ? 200 : undefined)
  .map((l) => JSON.parse(l) as Row);
const doc = (r: Row): unknown =>
  JSON.parse(
    r.completion
      .replace(/^Here is the result:\n/, "")
      .replace(/^```json\n/, "")
      .replace(/\n```$/, ""),
  );

function remoteFiles(dir: string, rel = ""): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const name of readdirSync(path.join(dir, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    if (statSync(path.join(dir, r)).isDirectory()) out.push(...remoteFiles(dir, r));
    else out.push([`http://localhost:1234/${r}`, JSON.parse(readFileSync(path.join(dir, r), "utf8"))]);
  }
  return out;
}

type Verdict = (r: Row) => Promise<boolean | null>;

async function measure(
  name: string,
  verdictFor: (group: Row[]) => Promise<Verdict>,
): Promise<{ name: string; ms: number; all: number; noRemote: number; nAll: number; nNoRemote: number }> {
  const groups = new Map<string, Row[]>();
  for (const r of rows) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  let all = 0;
  let noRemote = 0;
  let nNoRemote = 0;
  const t0 = performance.now();
  for (const g of groups.values()) {
    const v = await verdictFor(g);
    for (const r of g) {
      const agree = (await v(r)) === r.labels.valid;
      if (!agree && process.env.BENCH_VERBOSE) console.error(`${name}: ${r.id}`);
      if (agree) all++;
      if (!r.id.includes("/refRemote")) {
        nNoRemote++;
        if (agree) noRemote++;
      }
    }
  }
  return { name, ms: performance.now() - t0, all, noRemote, nAll: rows.length, nNoRemote };
}

async function main(): Promise<void> {
  const hyper = await measure("@hyperjump/json-schema", async (g) => {
    try {
      const c = await compileSchema(g[0]!.reference, DIALECTS["2020-12"], { "http://localhost:1234/": REMOTES });
      return async (r) => c.check(doc(r), { assertFormat: false, partial: false, maxErrors: 0 }).valid;
    } catch {
      return async () => null;
    }
  });
  const remotes = remoteFiles(REMOTES);
  const ajvs = {
    2020: new Ajv2020({ strict: false, validateFormats: false }),
    7: new Ajv({ strict: false, validateFormats: false }),
  };
  for (const [uri, schema] of remotes) {
    const target = uri.includes("/draft7/")
      ? [ajvs[7]]
      : uri.includes("/draft2020-12/")
        ? [ajvs[2020]]
        : [ajvs[7], ajvs[2020]];
    for (const a of target) {
      try {
        a.addSchema(schema as object, uri);
      } catch {
        // a remote the draft cannot load: its tests fail, as they would in use
      }
    }
  }
  const ajv = await measure("ajv", async (g) => {
    const a = g[0]!.id.startsWith("draft7/") ? ajvs[7] : ajvs[2020];
    try {
      const v = a.compile(g[0]!.reference as object);
      const verdict: Verdict = async (r) => {
        try {
          return v(doc(r));
        } catch {
          return null;
        }
      };
      if (typeof g[0]!.reference === "object") a.removeSchema(g[0]!.reference as object); // frees its $id for the next group
      return verdict;
    } catch {
      return async () => null;
    }
  });
  console.log("| library | agreement (all required) | agreement (no refRemote) | time | ratio |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const m of [hyper, ajv]) {
    console.log(
      `| ${m.name} | ${m.all}/${m.nAll} = ${((100 * m.all) / m.nAll).toFixed(2)} % | ${m.noRemote}/${m.nNoRemote} = ${((100 * m.noRemote) / m.nNoRemote).toFixed(2)} % | ${m.ms.toFixed(0)} ms | ${(m.ms / hyper.ms).toFixed(2)} |`,
    );
  }
  if (SMOKE) {
    const sides = [hyper, ajv].map((m) => `${m.name} ${m.noRemote}/${m.nNoRemote}`).join(", ");
    if ([hyper, ajv].every((m) => m.noRemote >= 0.95 * m.nNoRemote))
      console.log(`smoke: agree (with the suite's verdicts, no refRemote: ${sides})`);
    else {
      console.log(`smoke: DISAGREE (below 95 % of the suite's verdicts: ${sides})`);
      process.exitCode = 1;
    }
  }
}

void main();
