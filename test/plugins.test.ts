/**
 * User plugins (`plugins:` in a spec): a verifier written in a temp folder, importing `defineVerifier` from
 * "rewardkit" as a user project would, is used by `check`, `score` and the server; one that loops forever ends in
 * `timeout` without harming the other rollouts; a plugin cannot take a built-in's name.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../src/server/index.js";
import type { RunningServer } from "../src/server/index.js";
import { loadSpec } from "../src/spec/load.js";
import { SpecError } from "../src/spec/errors.js";
import { cli, readJsonl, ROOT, tmp } from "./helpers.js";

const dir = tmp();
mkdirSync(join(dir, "rewards"));
mkdirSync(join(dir, "node_modules"));
symlinkSync(ROOT, join(dir, "node_modules", "rewardkit"));
symlinkSync(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"));
writeFileSync(
  join(dir, "rewards", "words.mjs"),
  `import { defineVerifier, ok } from "rewardkit";
import { z } from "zod";
export default [
  defineVerifier({
    type: "word-target",
    options: z.strictObject({ target: z.number().int().positive() }),
    create: ({ target }) => (input) => ok(1 / (1 + Math.abs(input.completion.split(/\\s+/).filter(Boolean).length - target))),
  }),
  defineVerifier({
    type: "spin-on-loop",
    options: z.strictObject({}),
    create: () => (input) => {
      if (input.completion.includes("LOOP")) for (;;) {}
      return ok(1);
    },
  }),
];
`,
);
writeFileSync(
  join(dir, "rewards", "dup.mjs"),
  `import { defineVerifier, ok } from "rewardkit";\nimport { z } from "zod";\nexport default defineVerifier({ type: "math", options: z.strictObject({}), create: () => () => ok(0.25) });\n`,
);
writeFileSync(
  join(dir, "rewards", "plain.mjs"),
  `export default { type: "plain", create: () => () => ({ score: 1, status: "ok" }) };\n`,
);
const spec = join(dir, "spec.yaml");
writeFileSync(
  spec,
  "name: plugin-demo\nplugins: [./rewards/words.mjs]\ncomponents:\n  - {name: words, type: word-target, target: 2}\n  - {name: spin, type: spin-on-loop, timeoutMs: 1000}\n",
);
const rollouts = [
  { id: "a", group: "g", completion: "one two" },
  { id: "b", group: "g", completion: "LOOP one two three" },
  { id: "c", group: "g", completion: "x" },
];
writeFileSync(join(dir, "rollouts.jsonl"), rollouts.map((r) => JSON.stringify(r)).join("\n") + "\n");

/** What both the CLI and the server must give: words = 1/(1 + |n − 2|), spin = 1 or a timeout. */
function expectVerdicts(
  rows: { id: string; components: Record<string, { score: number | null; reason?: string }> }[],
): void {
  const by = Object.fromEntries(rows.map((r) => [r.id, r.components]));
  expect(by.a!.words!.score).toBe(1);
  expect(by.b!.words!.score).toBe(1 / 3);
  expect(by.c!.words!.score).toBe(1 / 2);
  expect(by.a!.spin!.score).toBe(1);
  expect(by.b!.spin).toMatchObject({ score: null, reason: "timeout" });
  expect(by.c!.spin!.score).toBe(1);
}

describe("plugins", () => {
  it("check reports the plugin and its types", () => {
    const r = cli(["check", spec]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("plugin ./rewards/words.mjs: verifier word-target, verifier spin-on-loop");
    expect(r.stdout).toMatch(/spin\s+spin-on-loop .* worker/);
  });

  it("score runs plugin verifiers; an endless loop is a timeout and the other rollouts score", () => {
    const out = join(dir, "scored.jsonl");
    const r = cli(["score", join(dir, "rollouts.jsonl"), "--spec", spec, "-q", "-o", out, "--concurrency", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expectVerdicts(readJsonl(out) as never);
  });

  describe("serve", () => {
    let srv: RunningServer;
    beforeAll(async () => {
      srv = await startServer(loadSpec(spec), { port: 0, concurrency: 1 });
    });
    afterAll(async () => {
      await srv.shutdown();
    });
    it("/v1/score gives the plugin's verdicts", async () => {
      const res = await fetch(`${srv.url}/v1/score`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ rollouts }),
      });
      expect(res.status).toBe(200);
      expectVerdicts(((await res.json()) as { results: never[] }).results);
    });
  });

  it("a plugin option error names the spec line; a plugin may not reuse a built-in name or be a plain object", () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(
      bad,
      "plugins: [./rewards/words.mjs]\ncomponents:\n  - name: words\n    type: word-target\n    target: five\n",
    );
    expect(() => loadSpec(bad)).toThrow(/bad\.yaml:5:5 components\[0\]\.target: expected number/);
    const dup = join(dir, "dup.yaml");
    writeFileSync(dup, "plugins:\n  - ./rewards/dup.mjs\ncomponents:\n  - {name: a, type: math}\n");
    expect(() => loadSpec(dup)).toThrow(/dup\.yaml:2:5 plugins\[0\]: verifier type "math" is built in/);
    const plain = join(dir, "plain.yaml");
    writeFileSync(
      plain,
      "plugins: [./rewards/plain.mjs, ./rewards/missing.mjs]\ncomponents:\n  - {name: a, type: plain}\n",
    );
    const e = (() => {
      try {
        loadSpec(plain);
      } catch (err) {
        return err as SpecError;
      }
    })();
    expect(e).toBeInstanceOf(SpecError);
    expect(e!.problems.map((p) => [p.path, p.message.slice(0, 40)])).toEqual([
      ["plugins[0]", "the default export is not a definition: "],
      ["plugins[1]", `cannot load ${join(dir, "rewards", "missing.mjs").slice(0, 28)}`],
    ]);
  });
});
