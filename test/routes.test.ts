import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Rollout } from "../src/core/types.js";
import { scoreBatch } from "../src/engine/batch.js";
import { createRoutedScorer } from "../src/engine/routes.js";
import type { RoutedBatchScore } from "../src/engine/routes.js";
import { createScorer } from "../src/engine/scorer.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { startServer } from "../src/server/index.js";
import type { RunningServer } from "../src/server/index.js";
import { SpecError } from "../src/spec/errors.js";
import { loadSpec, parseSpec } from "../src/spec/load.js";
import { chooseRoute, isRoutedSpec, loadAnySpec, parseAnySpec } from "../src/spec/routes.js";
import type { RoutedSpec } from "../src/spec/routes.js";
import { cli, readJsonl, ROOT, tmp } from "./helpers.js";

const MIXED = join(ROOT, "examples/data/mixed-rollouts.jsonl");
const rows = readJsonl<Rollout & { data_source: string; labels?: Record<string, unknown> }>(MIXED);
const noBwrap = await probeBwrap();

/** A routed spec in a temporary folder, with a route file in a sub-folder (relative to the spec). */
function writeSpecs(dir: string): string {
  mkdirSync(join(dir, "routes"), { recursive: true });
  writeFileSync(
    join(dir, "routes/json.yaml"),
    "name: json-route\ncomponents:\n  - {name: valid, type: json-schema, reference: labels.schema}\n",
  );
  const abs = join(tmp(), "exact.yaml");
  writeFileSync(abs, "name: exact-route\ncomponents: [{name: exact, type: exact}]\n");
  const spec = join(dir, "mixed.yaml");
  writeFileSync(
    spec,
    [
      "name: mixed-test",
      "routes:",
      "  by: data_source",
      "  json: routes/json.yaml",
      `  qa: ${abs}`,
      "  tool:",
      "    components:",
      "      - {name: call, type: tool-call}",
      "  ifeval:",
      "    components:",
      "      - {name: ifeval, type: ifeval}",
      "",
    ].join("\n"),
  );
  return spec;
}

describe("routed specs: parsing", () => {
  it("compiles inline routes and route files relative to the spec; the default route comes last", () => {
    const dir = tmp();
    const spec = loadAnySpec(writeSpecs(dir)) as RoutedSpec;
    expect(isRoutedSpec(spec)).toBe(true);
    expect(spec.by).toBe("data_source");
    expect([...spec.routes.keys()]).toEqual(["json", "qa", "tool", "ifeval"]);
    expect(spec.routes.get("qa")!.name).toBe("exact-route"); // an absolute route path is taken as it is
    expect(spec.routes.get("json")!.name).toBe("json-route");
    expect(spec.routes.get("json")!.components[0]!.referencePath).toBe("labels.schema");
    expect(spec.files.json).toBe(join(dir, "routes/json.yaml"));
    expect(spec.routes.get("tool")!.name).toBe("tool"); // an inline route without a name is named by its key
    // `{file: path}` is the same as the path; a route file that itself has routes is refused at its own line
    writeFileSync(join(dir, "f.yaml"), "routes: {by: t, j: {file: routes/json.yaml}}\n");
    const f = loadAnySpec(join(dir, "f.yaml")) as RoutedSpec;
    expect(f.routes.get("j")!.name).toBe("json-route");
    writeFileSync(join(dir, "outer.yaml"), "routes:\n  by: t\n  inner: f.yaml\n");
    expect(() => loadAnySpec(join(dir, "outer.yaml"))).toThrow(
      `${join(dir, "f.yaml")}:1:1 routes: this spec routes rollouts to sub-specs`,
    );
    const d = parseAnySpec(
      "routes:\n  default: {components: [{name: exact, type: exact}]}\n  by: task\n  a: {components: [{name: x, type: exact}]}\n",
      "d.yaml",
    ) as RoutedSpec;
    expect([...d.routes.keys()]).toEqual(["a", "default"]);
    expect(d.name).toBe("d");
  });

  it("hashes the routing rule and every route: key order and formatting do not change it, a route's option does", () => {
    const a = parseAnySpec(
      "routes: {by: ds, m: {components: [{name: e, type: exact}]}, n: {components: [{name: e, type: contains}]}}",
      "a.yaml",
    ) as RoutedSpec;
    const b = parseAnySpec(
      "routes:\n  n:\n    components: [{type: contains, name: e}]\n  m: {components: [{name: e, type: exact}]}\n  by: ds\n",
      "a.yaml",
    ) as RoutedSpec;
    const c = parseAnySpec(
      "routes: {by: other, m: {components: [{name: e, type: exact}]}, n: {components: [{name: e, type: contains}]}}",
      "a.yaml",
    ) as RoutedSpec;
    expect(a.hash).toBe(b.hash);
    expect(c.hash).not.toBe(a.hash);
  });

  it("a spec without routes is the ordinary spec; loadSpec refuses a routed one, naming the line", () => {
    const plain = parseAnySpec("components: [{name: e, type: exact}]\n", "p.yaml");
    expect(isRoutedSpec(plain)).toBe(false);
    expect(() => parseSpec("name: x\nroutes:\n  by: ds\n", "r.yaml")).toThrow(
      /^r\.yaml:2:1 routes: this spec routes rollouts to sub-specs/,
    );
  });

  it("reports every problem with file, line and field, inside inline routes and inside route files", () => {
    const dir = tmp();
    writeFileSync(join(dir, "bad-route.yaml"), "components:\n  - name: acc\n    type: math\n    weight: heavy\n");
    const text = [
      "name: broken",
      "components: [{name: x, type: exact}]",
      "routes:",
      "  math:",
      "    components:",
      "      - name: acc",
      "        type: no-such-verifier",
      "  code: bad-route.yaml",
      "  gone: missing.yaml",
      "  nested: {routes: {by: x}}",
      "  number: 3",
      "",
    ].join("\n");
    writeFileSync(join(dir, "spec.yaml"), text);
    let err: SpecError | undefined;
    try {
      loadAnySpec(join(dir, "spec.yaml"));
    } catch (e) {
      err = e as SpecError;
    }
    expect(err).toBeInstanceOf(SpecError);
    const lines = err!.message.split("\n").map((l) => l.replace(dir + "/", ""));
    expect(lines).toEqual([
      'spec.yaml:2:1 components: "components" cannot sit beside routes: every route is a whole spec with its own components, aggregate, onUnscorable and advantage; move it into the routes',
      "spec.yaml:3:1 routes.by: required: the rollout field whose value picks the route, e.g. by: data_source",
      expect.stringMatching(
        /^spec\.yaml:7:9 routes\.math\.components\[0\]\.type: unknown verifier type "no-such-verifier"; known: /,
      ),
      "spec.yaml:9:3 routes.gone: route file missing.yaml: cannot read spec: ENOENT",
      "spec.yaml:10:12 routes.nested.routes: routes cannot nest: a route is a single spec",
      "spec.yaml:11:3 routes.number: expected a spec (a mapping with components) or the path of a spec file, relative to this spec",
      expect.stringMatching(/^bad-route\.yaml:4:5 components\[0\]\.weight: /),
    ]);
  });

  it("refuses to route on the policy's own output (it would choose its judge)", () => {
    expect(() =>
      parseAnySpec("routes:\n  by: completion.0.content\n  a: {components: [{name: e, type: exact}]}\n", "h.yaml"),
    ).toThrow(
      'h.yaml:2:3 routes.by: "completion.0.content" is the policy\'s own output: a rollout must not choose its judge; route on a field of the dataset (data_source, metadata.*, labels.*)',
    );
  });

  it("chooses the route by the field's value as text; without a default an unknown or missing value is named", () => {
    const r = parseAnySpec(
      "routes: {by: meta.task, '1': {components: [{name: e, type: exact}]}, code: {components: [{name: e, type: exact}]}}",
      "r.yaml",
    ) as RoutedSpec;
    expect(chooseRoute(r, 1)).toMatchObject({ key: "1" });
    expect(chooseRoute(r, "code")).toMatchObject({ key: "code" });
    expect(chooseRoute(r, "Code")).toEqual({
      field: "meta.task",
      message: 'no route for meta.task "Code" and no default route; routes: 1, code',
    });
    expect(chooseRoute(r, undefined)).toEqual({
      field: "meta.task",
      message: "no meta.task: the spec routes by it and has no default route; routes: 1, code",
    });
    expect(chooseRoute(r, { a: 1 })).toMatchObject({
      message: expect.stringContaining("a object (route values are strings, numbers or booleans)"),
    });
    const d = parseAnySpec(
      "routes: {by: t, a: {components: [{name: e, type: exact}]}, default: {components: [{name: f, type: contains}]}}",
      "d.yaml",
    ) as RoutedSpec;
    expect(chooseRoute(d, "zzz")).toMatchObject({ key: "default" });
    expect(chooseRoute(d, null)).toMatchObject({ key: "default" });
    expect(chooseRoute(d, "default")).toMatchObject({ key: "default" });
  });
});

describe("routed specs: scoreBatch", () => {
  it("scores every rollout exactly as its route's spec alone; an unknown value gets no reward and its reason", async () => {
    const spec = loadAnySpec(writeSpecs(tmp())) as RoutedSpec;
    const batch = rows.filter((r) => ["json", "tool", "ifeval", "trivia"].includes(r.data_source));
    const scorer = createRoutedScorer(spec, { concurrency: 1 });
    let b: RoutedBatchScore;
    try {
      b = await scoreBatch(scorer, batch);
    } finally {
      await scorer.close();
    }
    expect(b.routes.filter((k) => k === null)).toHaveLength(2); // the two trivia rollouts: no default route
    batch.forEach((r, i) => {
      if (r.data_source === "trivia") {
        expect(b.scores[i]).toBeNull();
        expect(b.problems[i]).toEqual({
          field: "data_source",
          message: 'no route for data_source "trivia" and no default route; routes: json, qa, tool, ifeval',
        });
      } else expect(b.routes[i]).toBe(r.data_source);
    });
    // each route alone, through the ordinary scorer
    for (const key of ["json", "tool", "ifeval"]) {
      const idx = batch.map((r, i) => (r.data_source === key ? i : -1)).filter((i) => i >= 0);
      const alone = createScorer(spec.routes.get(key)!, { concurrency: 1 });
      try {
        const a = await scoreBatch(
          alone,
          idx.map((i) => batch[i]!),
        );
        idx.forEach((i, j) => {
          expect(b.scores[i]!.reward, batch[i]!.id).toBe(a.scores[j]!.reward);
          expect(b.scores[i]!.results).toEqual(a.scores[j]!.results);
          expect(Object.is(b.advantages[i], a.advantages[j]) || b.advantages[i] === a.advantages[j]).toBe(true);
        });
      } finally {
        await alone.close();
      }
    }
    // real verdicts: BFCL's own on the tool calls, Google's checker on IFEval, the suite's on the JSON documents
    batch.forEach((r, i) => {
      if (r.data_source === "tool") expect(b.scores[i]!.reward, r.id).toBe(r.labels!.bfcl_valid ? 1 : 0);
      if (r.data_source === "ifeval") expect(b.scores[i]!.reward, r.id).toBe(r.labels!.google_strict ? 1 : 0);
      if (r.data_source === "json") expect(b.scores[i]!.reward, r.id).toBe(r.labels!.valid ? 1 : 0);
    });
  });

  it("a group that spans routes keeps its rewards but gets no advantage, with a warning naming it", async () => {
    const spec = parseAnySpec(
      "routes: {by: t, a: {components: [{name: e, type: exact}]}, b: {components: [{name: e, type: contains}]}}",
      "s.yaml",
    ) as RoutedSpec;
    const rs: Rollout[] = [
      { id: "1", group: "g", t: "a", completion: "x", reference: "x" },
      { id: "2", group: "g", t: "b", completion: "y", reference: "x" },
      { id: "3", group: "h", t: "a", completion: "x", reference: "x" },
      { id: "4", group: "h", t: "a", completion: "z", reference: "x" },
    ];
    const scorer = createRoutedScorer(spec, { concurrency: 1 });
    const b = await scoreBatch(scorer, rs);
    await scorer.close();
    expect(b.scores.map((s) => s!.reward)).toEqual([1, 0, 1, 0]);
    expect(Number.isNaN(b.advantages[0]!) && Number.isNaN(b.advantages[1]!)).toBe(true);
    // group h: GRPO, rewards (1, 0): mean 0.5, unbiased std √0.5, so ±0.5/(0.70711 + 1e-6)
    expect(b.advantages[2]).toBeCloseTo(0.5 / (Math.SQRT1_2 + 1e-6), 12);
    expect(b.advantages[3]).toBeCloseTo(-0.5 / (Math.SQRT1_2 + 1e-6), 12);
    expect(b.warnings).toEqual([expect.stringMatching(/^1 group spans several routes: "g" \(a, b\);/)]);
  });
});

describe("routed specs: advantages per route, or batch-wide with the routed spec's own advantage block", () => {
  const rs = rows.filter((r) => r.data_source === "tool" || r.data_source === "trivia"); // 8 singleton tool groups + 1 trivia pair
  const routesText =
    "  by: data_source\n  tool: {components: [{name: call, type: tool-call}], advantage: {estimator: reinforce_pp_baseline}}\n  default: {components: [{name: exact, type: exact}], advantage: {estimator: reinforce_pp_baseline}}\n";
  it("per route: REINFORCE++-baseline whitens over the route's rollouts; batch-wide: over all ten (library and CLI agree)", async () => {
    const per = parseAnySpec(`routes:\n${routesText}`, "per.yaml") as RoutedSpec;
    const wide = parseAnySpec(
      `advantage: {estimator: reinforce_pp_baseline}\nroutes:\n${routesText}`,
      "wide.yaml",
    ) as RoutedSpec;
    const trivia = rs.map((r, i) => (r.data_source === "trivia" ? i : -1)).filter((i) => i >= 0);
    const run = async (spec: RoutedSpec): Promise<RoutedBatchScore> => {
      const scorer = createRoutedScorer(spec, { concurrency: 1 });
      try {
        return await scoreBatch(scorer, rs);
      } finally {
        await scorer.close();
      }
    };
    // trivia rewards (1, 0): group-centred ±0.5; every tool rollout is a singleton (0). Whitened with the unbiased
    // std: over the trivia route alone √(0.5/1); over the whole batch √(0.5/9)
    const a = await run(per);
    expect(trivia.map((i) => a.advantages[i])).toEqual([
      expect.closeTo(0.5 / Math.sqrt(0.5), 6),
      expect.closeTo(-0.5 / Math.sqrt(0.5), 6),
    ]);
    const b = await run(wide);
    expect(trivia.map((i) => b.advantages[i])).toEqual([
      expect.closeTo(0.5 / Math.sqrt(0.5 / 9), 6),
      expect.closeTo(-0.5 / Math.sqrt(0.5 / 9), 6),
    ]);
    expect(b.scores.map((s) => s!.reward)).toEqual(a.scores.map((s) => s!.reward));
    const dir = tmp();
    writeFileSync(join(dir, "wide.yaml"), `advantage: {estimator: reinforce_pp_baseline}\nroutes:\n${routesText}`);
    writeFileSync(join(dir, "in.jsonl"), rs.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const r = cli([
      "score",
      join(dir, "in.jsonl"),
      "--spec",
      join(dir, "wide.yaml"),
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
    ]);
    expect(r.code).toBe(0);
    expect(readJsonl<{ advantage: number }>(join(dir, "out.jsonl")).map((o) => o.advantage)).toEqual(
      Array.from(b.advantages),
    );
    const s = JSON.parse(readFileSync(join(dir, "s.json"), "utf8")) as {
      advantage: { estimator: string };
      routes: Record<string, { advantage: { estimator: string } }>;
    };
    expect(s.advantage.estimator).toBe("reinforce_pp_baseline (batch-wide, over every route)");
    expect(s.routes.tool!.advantage.estimator).toBe("reinforce_pp_baseline (batch-wide)");
  });

  it("a batch-wide block is validated like a spec's, and refuses estimators that decompose the reward by component", () => {
    expect(() => parseAnySpec(`advantage: {estimator: gdpo}\nroutes:\n${routesText}`, "w.yaml")).toThrow(
      /^w\.yaml:1:13 advantage\.estimator: gdpo decomposes the reward by component/,
    );
    expect(() =>
      parseAnySpec(`advantage: {estimator: grpo, std: sometimes}\nroutes:\n${routesText}`, "w.yaml"),
    ).toThrow(/^w\.yaml:1:30 advantage\.std: expected one of/);
  });
});

describe.skipIf(noBwrap)("routed specs: rewardkit score and check on the example's mixed batch", () => {
  it("scores examples/data/mixed-rollouts.jsonl with examples/routing.yaml: per-route and overall summaries by hand", () => {
    const dir = tmp();
    const r = cli([
      "score",
      MIXED,
      "--spec",
      "examples/routing.yaml",
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
      "--concurrency",
      "1",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = readJsonl<{
      id: string;
      route: string;
      reward: number;
      advantage: number | null;
      labels?: Record<string, unknown>;
    }>(join(dir, "out.jsonl"));
    expect(out.map((o) => o.id)).toEqual(rows.map((x) => x.id)); // input order
    expect(out.map((o) => o.route)).toEqual(rows.map((x) => (x.data_source === "trivia" ? "default" : x.data_source)));
    const s = JSON.parse(readFileSync(join(dir, "s.json"), "utf8")) as {
      count: number;
      reward: { mean: number };
      passHatK: Record<string, number>;
      routes: Record<
        string,
        { count: number; spec: { name: string }; reward: { mean: number }; advantage: { estimator: string } }
      >;
      components: Record<string, { mean: number }>;
    };
    const counts = Object.fromEntries(Object.entries(s.routes).map(([k, v]) => [k, v.count]));
    expect(counts).toEqual({ math: 16, code: 4, json: 4, ifeval: 4, tool: 8, default: 2 });
    // rewards: math 3/8 + 4/8 correct (the peer grader agrees), code 2 canonical of 4, json 3 valid of 4, ifeval 1
    // followed of 4, tool 6 right of 8 (BFCL: simple_python_13 and irrelevance_4 wrong), trivia 1 of 2
    const means = Object.fromEntries(Object.entries(s.routes).map(([k, v]) => [k, v.reward.mean]));
    expect(means).toEqual({ math: 0.4375, code: 0.5, json: 0.75, ifeval: 0.25, tool: 0.75, default: 0.5 });
    expect(s.count).toBe(38);
    expect(s.reward.mean).toBe(Number((20 / 38).toFixed(6)));
    expect(s.routes.tool!.advantage.estimator).toBe("rloo");
    expect(s.routes.math!.spec.name).toBe("math-rlvr");
    expect(s.components["tool/call"]!.mean).toBe(0.75);
    // pass^1: mean over the 18 groups of c/n = (3/8 + 4/8 + 1/2 + 1/2 + 3/4 + 1 [ifeval] + 6 [tool] + 1/2) / 18
    expect(s.passHatK["1"]).toBe(Number((10.125 / 18).toFixed(6)));
    // pass^2 over the 6 groups of ≥ 2: math C(3,2)/C(8,2) + C(4,2)/C(8,2), code 0 + 0, json C(3,2)/C(4,2), trivia 0
    expect(s.passHatK["2"]).toBe(Number(((3 / 28 + 6 / 28 + 0.5) / 6).toFixed(6)));
    // the math route's advantages: GRPO over each group alone, e.g. math-6 (3 of 8 right): mean 3/8, unbiased std
    // √(8/7 · 3/8 · 5/8), so a right answer gets (5/8) / (std + 1e-6)
    const std = Math.sqrt((8 / 7) * (3 / 8) * (5 / 8));
    expect(out.find((o) => o.id === "math-6-1")!.advantage).toBeCloseTo(0.625 / (std + 1e-6), 12);
    expect(out.find((o) => o.id === "simple_python_0")!.advantage).toBe(0); // rloo: a group of one has no baseline
    const c = cli(["check", "examples/routing.yaml"]);
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/^spec mixed-rlvr \(hash [0-9a-f]{16}\): routes by data_source\n/);
    expect(c.stdout).toMatch(/\nmath +math-rlvr +accuracy, format, overlong +grpo +examples\/math\.yaml\n/);
    expect(c.stdout).toMatch(/\ndefault \(any other value\) +exact-answer +exact +grpo +inline\n/);
    expect(c.stdout).toContain("\nroute tool: spec tool-use (hash ");
    const j = JSON.parse(cli(["check", "examples/routing.yaml", "--json"]).stdout) as {
      routes: { by: string; json: { components: Array<{ reference?: string }> } };
    };
    expect(j.routes.by).toBe("data_source");
    expect(j.routes.json.components[0]!.reference).toBe("labels.schema");
  });
});

describe("routed specs: rewardkit score without a default route", () => {
  it("skips and names a rollout whose value has no route (line and value), scores the rest, exits 0", () => {
    const dir = tmp();
    const spec = writeSpecs(dir);
    const input = join(dir, "in.jsonl");
    const trivia = rows.find((x) => x.data_source === "trivia")!;
    const picked = [rows.find((x) => x.data_source === "tool")!, trivia, { ...trivia, id: "qa-1", data_source: "qa" }];
    writeFileSync(input, picked.map((x) => JSON.stringify(x)).join("\n") + "\nnot json\n");
    const r = cli([
      "score",
      input,
      "--spec",
      spec,
      "-o",
      join(dir, "out.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "-q",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `skipped ${input}:2 data_source: no route for data_source "trivia" and no default route; routes: json, qa, tool, ifeval\n`,
    );
    expect(r.stderr).toContain(`skipped ${input}:4: invalid JSON`);
    expect(r.stderr).toContain(
      'warning: 1 rollouts had no route (data_source: "trivia" (1)) and were skipped; add a route or a default route',
    );
    const out = readJsonl<{ id: string; reward: number; route: string }>(join(dir, "out.jsonl"));
    expect(out.map((o) => [o.id, o.reward, o.route])).toEqual([
      ["simple_python_0", 1, "tool"],
      ["qa-1", 1, "qa"],
    ]);
    const s = JSON.parse(readFileSync(join(dir, "s.json"), "utf8")) as {
      count: number;
      malformed: number;
      unrouted: unknown;
      routes: Record<string, { count: number }>;
    };
    expect(s.count).toBe(2);
    expect(s.malformed).toBe(2);
    expect(s.unrouted).toEqual({ count: 1, values: { trivia: 1 } });
    expect(Object.fromEntries(Object.entries(s.routes).map(([k, v]) => [k, v.count]))).toEqual({
      json: 0,
      qa: 1,
      tool: 1,
      ifeval: 0,
    });
    const strict = cli(["score", input, "--spec", spec, "--strict", "-q"]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(`${input}:2 data_source: no route for data_source "trivia"`);
  });
});

describe("routed specs: one server for every route", () => {
  let srv: RunningServer;
  const spec = parseAnySpec(
    [
      "name: served",
      "routes:",
      "  by: metadata.data_source",
      "  json: {components: [{name: valid, type: json-schema, reference: labels.schema}]}",
      "  tool: {components: [{name: call, type: tool-call}]}",
      "  exact: {components: [{name: exact, type: exact, reference: reference.answer}]}",
      "",
    ].join("\n"),
    "served.yaml",
  ) as RoutedSpec;
  const batch = rows
    .filter((r) => r.data_source === "json" || r.data_source === "tool")
    .map((r) => ({ ...r, metadata: { data_source: r.data_source } }))
    .concat([{ ...rows[0]!, id: "stray", metadata: { data_source: "poetry" } }]);
  beforeAll(async () => {
    srv = await startServer(spec, { port: 0, concurrency: 1 });
  });
  afterAll(async () => {
    await srv.shutdown();
  });

  it("/v1/score: each rollout by its route, as scoreBatch gives it; an unknown value is an error entry naming it", async () => {
    const res = await fetch(`${srv.url}/v1/score`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rollouts: batch }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      spec: { name: string; hash: string };
      results: Array<{
        id: string;
        reward: number | null;
        route: string | null;
        advantage: number | null;
        error?: { field: string; message: string };
        components: Record<string, unknown> | null;
      }>;
    };
    expect(body.spec).toEqual({ name: "served", hash: spec.hash });
    const scorer = createRoutedScorer(spec, { concurrency: 1 });
    const lib = await scoreBatch(scorer, batch);
    await scorer.close();
    expect(body.results.map((r) => [r.id, r.reward, r.route])).toEqual(
      batch.map((r, i) => [r.id, lib.scores[i]?.reward ?? null, lib.routes[i]]),
    );
    expect(body.results.map((r) => r.advantage)).toEqual(
      Array.from(lib.advantages, (a) => (Number.isNaN(a) ? null : a)),
    );
    const stray = body.results.at(-1)!;
    expect(stray).toMatchObject({
      id: "stray",
      reward: null,
      route: null,
      error: {
        field: `rollouts[${batch.length - 1}].metadata.data_source`,
        message: expect.stringContaining('no route for metadata.data_source "poetry"'),
      },
    });
    expect(Object.keys(body.results[0]!.components!)).toEqual(["valid"]);
    expect(Object.keys(body.results[5]!.components!)).toEqual(["call"]);
  });

  it("/v1/spec lists the routes and every route's component names (the verl client's keys); /healthz names the routed spec", async () => {
    const s = (await (await fetch(`${srv.url}/v1/spec`)).json()) as {
      name: string;
      by: string;
      routes: string[];
      components: string[];
    };
    expect(s).toMatchObject({
      name: "served",
      by: "metadata.data_source",
      routes: ["json", "tool", "exact"],
      components: ["valid", "call", "exact"],
    });
    expect(((await (await fetch(`${srv.url}/healthz`)).json()) as { spec: unknown }).spec).toEqual({
      name: "served",
      hash: spec.hash,
    });
  });

  it("/get_reward (OpenRLHF): routes on a JSON label; per-route extra_logs; no route → 0.0 flagged in no_route", async () => {
    const byLabel = parseAnySpec(
      "routes: {by: reference.task, exact: {components: [{name: exact, type: exact, reference: reference.answer}]}, contains: {components: [{name: has, type: contains, reference: reference.answer}]}}",
      "l.yaml",
    ) as RoutedSpec;
    const s2 = await startServer(byLabel, { port: 0, concurrency: 1 });
    try {
      const res = await fetch(`${s2.url}/get_reward`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query: [
            "Q: capital?\nA: Paris",
            "Q: capital?\nA: It is Paris.",
            "Q: capital?\nA: It is Paris.",
            "Q: x\nA: y",
          ],
          prompts: ["Q: capital?\nA:", "Q: capital?\nA:", "Q: capital?\nA:", "Q: x\nA:"],
          labels: [
            { task: "exact", answer: "Paris" },
            { task: "exact", answer: "Paris" },
            { task: "contains", answer: "Paris" },
            { task: "poem", answer: "y" },
          ],
        }),
      });
      expect(res.status).toBe(200);
      const b = (await res.json()) as { rewards: number[]; scores: number[]; extra_logs: Record<string, number[]> };
      expect(b.rewards).toEqual([1, 0, 1, 0]);
      expect(b.scores).toEqual([1, 0, 1, 0]);
      expect(b.extra_logs).toEqual({
        no_route: [0, 0, 0, 1],
        "route/exact": [1, 1, 0, 0],
        "exact/exact": [1, 0, 0, 0],
        "route/contains": [0, 0, 1, 0],
        "contains/has": [0, 0, 1, 0],
      });
    } finally {
      await s2.shutdown();
    }
  });
});

describe("routed specs: the loader used by every command", () => {
  it("loadSpec keeps taking single specs (examples/math.yaml), loadAnySpec both", () => {
    expect(loadSpec(join(ROOT, "examples/math.yaml")).name).toBe("math-rlvr");
    expect(isRoutedSpec(loadAnySpec(join(ROOT, "examples/math.yaml")))).toBe(false);
    expect(isRoutedSpec(loadAnySpec(join(ROOT, "examples/routing.yaml")))).toBe(true);
  });
});
