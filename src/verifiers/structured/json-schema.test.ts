import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jsonSchemaVerifier } from "./json-schema.js";
import { run } from "./run.test-helper.js";

const person = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
  required: ["name", "age"],
};

describe("json-schema", () => {
  it("1 when valid, 0 with the failing keywords when not", async () => {
    expect(await run(jsonSchemaVerifier, {}, '{"name": "Ada", "age": 36}', person)).toEqual({ score: 1, status: "ok" });
    const r = await run(jsonSchemaVerifier, {}, 'Sure!\n```json\n{"name": "Ada"}\n```', person);
    expect(r).toMatchObject({ score: 0, status: "ok", reason: "schema_violation" });
    expect(r.details?.errors).toEqual([{ instancePath: "/", keyword: "required", schemaPath: "#/required" }]);
    const r2 = await run(jsonSchemaVerifier, {}, '{"name": 1, "age": -1}', person);
    expect(r2.details?.errors).toEqual([
      { instancePath: "/name", keyword: "type", schemaPath: "#/properties/name/type" },
      { instancePath: "/age", keyword: "minimum", schemaPath: "#/properties/age/minimum" },
    ]);
  });

  it("partial credit: share of the assertion keywords evaluated that held", async () => {
    // evaluated: type(object) ✓, name/type ✗, age/type ✓, age/minimum ✗, required ✓ → 3/5
    const r = await run(jsonSchemaVerifier, { scoring: "partial" }, '{"name": 1, "age": -1}', person);
    expect(r).toMatchObject({ score: 0.6, reason: "schema_violation", details: { evaluated: 5, satisfied: 3 } });
    // required alone fails: type ✓ name/type ✓ required ✗ → 2/3
    expect((await run(jsonSchemaVerifier, { scoring: "partial" }, '{"name": "Ada"}', person)).score).toBeCloseTo(
      2 / 3,
      12,
    );
    expect((await run(jsonSchemaVerifier, { scoring: "partial" }, '{"name": "Ada", "age": 3}', person)).score).toBe(1);
  });

  it("boolean schemas are schemas; only a missing reference is no_reference", async () => {
    expect((await run(jsonSchemaVerifier, {}, "42", true)).score).toBe(1);
    expect(await run(jsonSchemaVerifier, {}, "42", false)).toMatchObject({ score: 0, reason: "schema_violation" });
    expect(await run(jsonSchemaVerifier, {}, "42")).toEqual({
      score: null,
      status: "unscorable",
      reason: "no_reference",
    });
    expect((await run(jsonSchemaVerifier, {}, "42", [1])).reason).toBe("invalid_reference");
    expect((await run(jsonSchemaVerifier, {}, "42", { type: 12 })).reason).toBe("invalid_reference");
    // a fixed schema from the spec wins over the reference
    expect((await run(jsonSchemaVerifier, { schema: { type: "string" } }, '"x"', false)).score).toBe(1);
  });

  it("no_json / invalid_json with the error's line and column", async () => {
    expect(await run(jsonSchemaVerifier, {}, "I cannot do that.", person)).toEqual({
      score: null,
      status: "unscorable",
      reason: "no_json",
    });
    const r = await run(jsonSchemaVerifier, {}, '```json\n{"name": "Ada",\n "age": }\n```', person);
    expect(r).toMatchObject({
      status: "unscorable",
      reason: "invalid_json",
      details: { source: "fence", line: 2, column: 9 },
    });
  });

  it("dialect from $schema, else defaultDialect", async () => {
    // draft-07 array-form `items` is a tuple; in 2020-12 array-form `items` is not a valid schema
    const tuple = { items: [{ type: "string" }] };
    expect((await run(jsonSchemaVerifier, { defaultDialect: "draft-07" }, '["a", 1]', tuple)).score).toBe(1);
    expect((await run(jsonSchemaVerifier, { defaultDialect: "draft-07" }, "[1]", tuple)).score).toBe(0);
    expect((await run(jsonSchemaVerifier, {}, "[1]", tuple)).reason).toBe("invalid_reference");
    expect(
      (await run(jsonSchemaVerifier, {}, "[1]", { $schema: "http://json-schema.org/draft-07/schema#", ...tuple }))
        .score,
    ).toBe(0);
    // 2020-12 prefixItems
    expect(
      (await run(jsonSchemaVerifier, {}, '["a", 1]', { prefixItems: [{ type: "string" }], items: false })).score,
    ).toBe(0);
  });

  it("format is an annotation unless assertFormat", async () => {
    const s = { type: "string", format: "date" };
    expect((await run(jsonSchemaVerifier, {}, '"Feb 29, 2031"', s)).score).toBe(1);
    expect((await run(jsonSchemaVerifier, { assertFormat: true }, '"Feb 29, 2031"', s)).score).toBe(0);
    expect((await run(jsonSchemaVerifier, { assertFormat: true }, '"2031-02-28"', s)).score).toBe(1);
  });

  it("never fetches: a network or file $ref is unresolved_ref; remotes serve a local folder", async () => {
    const remote = { $ref: "http://localhost:1234/integer.json" };
    expect(await run(jsonSchemaVerifier, {}, "1", remote)).toMatchObject({
      status: "unscorable",
      reason: "unresolved_ref",
      details: { uri: "http://localhost:1234/integer.json" },
    });
    expect((await run(jsonSchemaVerifier, {}, "1", { $ref: "https://example.com/s.json" })).reason).toBe(
      "unresolved_ref",
    );
    expect((await run(jsonSchemaVerifier, {}, "1", { $ref: "file:///etc/passwd" })).reason).toBe("unresolved_ref");
    const remotes = { "http://localhost:1234/": "examples/data/json-schema-remotes" };
    expect((await run(jsonSchemaVerifier, { remotes }, "1", remote)).score).toBe(1);
    expect((await run(jsonSchemaVerifier, { remotes }, '"a"', remote)).score).toBe(0);
    // no escaping the folder
    expect(
      (await run(jsonSchemaVerifier, { remotes }, "1", { $ref: "http://localhost:1234/../../package.json" })).reason,
    ).toBe("unresolved_ref");
  });

  it("same $id in different schemas does not clash (compiled per distinct schema)", async () => {
    const a = { $id: "https://example.com/s", type: "string" };
    const b = { $id: "https://example.com/s", type: "number" };
    const fn = jsonSchemaVerifier.create(jsonSchemaVerifier.options.parse({ cacheSize: 1 }));
    const go = (c: string, s: unknown) =>
      fn({ completion: c, reference: s, rollout: { id: "r", group: "g", completion: c } });
    const out = await Promise.all([go('"x"', a), go("1", b), go("1", a), go('"x"', b), go('"x"', a)]);
    expect(out.map((r) => r.score)).toEqual([1, 1, 0, 0, 1]);
  });
});

/**
 * The acceptance property on the official JSON-Schema-Test-Suite (commit 44401e0c, draft2020-12 + draft7,
 * required tests, remote refs served from the suite's remotes/ folder): reward 1 iff the test says valid.
 * The three known disagreements are explained in docs/verifiers-structured.md.
 */
describe("json-schema on the JSON-Schema-Test-Suite", () => {
  it("agrees on >= 99.5 % of tests; the remaining ones are the documented ones", async () => {
    const rows = readFileSync("examples/data/json-schema-suite.jsonl", "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; completion: string; reference: unknown; labels: { valid: boolean } });
    expect(rows.length).toBe(2226);
    const fn = jsonSchemaVerifier.create(
      jsonSchemaVerifier.options.parse({ remotes: { "http://localhost:1234/": "examples/data/json-schema-remotes" } }),
    );
    const wrong: string[] = [];
    for (const r of rows) {
      const v = await fn({
        completion: r.completion,
        reference: r.reference,
        rollout: { id: r.id, group: "g", completion: r.completion },
      });
      if ((v.score === 1) !== r.labels.valid) wrong.push(r.id);
    }
    expect(1 - wrong.length / rows.length).toBeGreaterThanOrEqual(0.995);
    expect(wrong).toEqual(KNOWN_DISAGREEMENTS);
  }, 60_000);
});

const KNOWN_DISAGREEMENTS = ["draft7/ref.json/6/0", "draft7/ref.json/6/1", "draft7/refRemote.json/5/0"];
