// Converts ../shared/data/json-schema-test-suite (JSON-Schema-Test-Suite, commit 44401e0c) into
// examples/data/json-schema-suite.jsonl: one rollout per test of the required draft2020-12 and draft7 tests
// (not optional/), completion = the test's document (bare, in a ```json fence, or after a line of prose),
// reference = the group's schema (draft7 schemas without `$schema` get draft-07's), labels.valid = the verdict.
// Also copies the remote documents those drafts reference into examples/data/json-schema-remotes/, served
// to the `json-schema` verifier for http://localhost:1234/ by examples/json-schema.yaml (never over the network).
// Run once from the repository root; the output is committed.
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";

const suite = new URL("../../shared/data/json-schema-test-suite/", import.meta.url);
const out = new URL("../examples/data/json-schema-suite.jsonl", import.meta.url);
const remotesOut = new URL("../examples/data/json-schema-remotes/", import.meta.url);
const DRAFT7 = "http://json-schema.org/draft-07/schema#";
const WRAPS = ["{}", "Here is the result:\n```json\n{}\n```", "```json\n{}\n```"];

const rows = [];
for (const draft of ["draft2020-12", "draft7"]) {
  const dir = new URL(`tests/${draft}/`, suite);
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort()) {
    const groups = JSON.parse(readFileSync(new URL(name, dir), "utf8"));
    groups.forEach((g, gi) => {
      let schema = g.schema;
      if (draft === "draft7" && schema && typeof schema === "object" && !("$schema" in schema))
        schema = { $schema: DRAFT7, ...schema };
      g.tests.forEach((t, ti) => {
        const wrap = WRAPS[rows.length % WRAPS.length];
        rows.push({
          id: `${draft}/${name}/${gi}/${ti}`,
          group: `${draft}/${name}/${gi}`,
          prompt: `${g.description}: ${t.description}`,
          completion: wrap.replace("{}", () => JSON.stringify(t.data)),
          reference: schema,
          labels: { valid: t.valid },
          metadata: {
            source: `JSON-Schema-Test-Suite tests/${draft}/${name}`,
            group: g.description,
            test: t.description,
          },
        });
      });
    });
  }
}
writeFileSync(out, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");

rmSync(remotesOut, { recursive: true, force: true });
mkdirSync(remotesOut, { recursive: true });
for (const e of readdirSync(new URL("remotes/", suite), { withFileTypes: true })) {
  // other drafts' remotes are not referenced by draft2020-12 / draft7 tests
  if (e.isDirectory() && /^(draft2019-09|draft3|draft4|draft6|v1)$/.test(e.name)) continue;
  cpSync(new URL(`remotes/${e.name}`, suite), new URL(e.name, remotesOut), { recursive: true });
}
console.log(`wrote ${rows.length} rollouts`);
