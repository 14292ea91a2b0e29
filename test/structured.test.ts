import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, readJsonl, tmp } from "./helpers.js";

interface Scored {
  id: string;
  step?: number;
  reward: number | null;
  components: Record<string, { score: number | null; status: string }>;
}
const s = (r: Scored, k: string) => r.components[k]!.score ?? 0;

describe("structured rewards on the 800 bundled rollouts", () => {
  const dir = tmp();
  const run = (ex: string) => {
    const out = join(dir, `${ex}.jsonl`);
    const r = cli(["score", "examples/data/math-rollouts.jsonl", "--spec", `examples/${ex}.yaml`, "-o", out, "-q"]);
    return { ...r, rows: r.code === 0 ? readJsonl<Scored>(out) : [] };
  };

  it("gated.yaml: reward = accuracy + brevity when accuracy is 1, else accuracy", () => {
    const { code, stderr, rows } = run("gated");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(rows).toHaveLength(800);
    for (const r of rows) {
      const a = s(r, "accuracy");
      expect(r.reward).toBeCloseTo(a + (a === 1 ? s(r, "brevity") : 0), 12);
    }
    // the gate matters on this data: some correct answers are penalized, some wrong long ones are not
    expect(rows.some((r) => s(r, "accuracy") === 1 && s(r, "brevity") < 0)).toBe(true);
    expect(rows.some((r) => s(r, "accuracy") === 0 && s(r, "brevity") < 0 && r.reward === 0)).toBe(true);
  });

  it("formula.yaml: reward = 0.8·accuracy + 0.2·format", () => {
    const { code, rows } = run("formula");
    expect(code).toBe(0);
    expect(rows).toHaveLength(800);
    for (const r of rows) expect(r.reward).toBeCloseTo(0.8 * s(r, "accuracy") + 0.2 * s(r, "format"), 12);
  });

  it("run-then-walk.yaml: check --steps gives the stated values", () => {
    const r = cli(["check", "examples/run-then-walk.yaml", "--steps", "0,50,100,199,200,300", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      steps: [0, 50, 100, 199, 200, 300],
      values: {
        "components.format.weight": [0.5, 0.25, 0, 0, 0, 0],
        "components.overlong.penaltyFactor": [0, 0, 0, 0, 1, 1],
      },
    });
    expect(run("run-then-walk").code).toBe(0);
  });

  it("a scheduled option takes the rollout's step: the same completion scores differently at steps 0 and 200", () => {
    const rows = readFileSync("examples/data/math-rollouts.jsonl", "utf8").split("\n").filter(Boolean).slice(0, 80);
    const input = join(dir, "steps.jsonl");
    // each rollout twice: at step 0 and at step 200 (identical text: the verdict cache must not mix them)
    writeFileSync(
      input,
      rows
        .flatMap((l) =>
          [0, 200].map((step) => JSON.stringify({ ...JSON.parse(l), id: `${JSON.parse(l).id}@${step}`, step })),
        )
        .join("\n") + "\n",
    );
    const spec = join(dir, "sched.yaml");
    writeFileSync(
      spec,
      `components:
  - {name: accuracy, type: math}
  - name: overlong
    type: overlong
    maxLength: 400
    bufferLength: 200
    penaltyFactor: {schedule: piecewise, stages: [{startStep: 0, value: 0}, {startStep: 200, value: 2}]}
    weight: {schedule: linear, from: 1, to: 0.5, endStep: 400}
`,
    );
    const out = join(dir, "steps.out.jsonl");
    const r = cli(["score", input, "--spec", spec, "-o", out, "-q"]);
    expect(r.code).toBe(0);
    const scored = readJsonl<Scored & { completion: string }>(out);
    let penalized = 0;
    for (const x of scored) {
      const len = Math.ceil(x.completion.length / 4);
      // DAPO's penalty, held at −p past maxLength (400)
      const want = x.step === 0 ? 0 : Math.min((-(Math.min(len, 400) - 200) / 200) * 2, 0);
      expect(s(x, "overlong")).toBeCloseTo(want, 12);
      const w = x.step === 0 ? 1 : 0.75;
      expect(x.reward).toBeCloseTo(s(x, "accuracy") + w * s(x, "overlong"), 12);
      if (want < 0) penalized++;
    }
    expect(penalized).toBeGreaterThan(5);
  });

  it("score --state: two runs with a saved state end where one run ends", () => {
    const spec = join(dir, "perf.yaml");
    writeFileSync(
      spec,
      `components:
  - name: loc
    type: contains
    value: [alpha, beta, gamma, delta]
    mode: all
    passThreshold: {schedule: performance, from: 0.25, to: 1, increment: 0.25, window: 4, passRate: 0.75, tolerance: 0}
`,
    );
    const text: Record<number, string> = { 0: "none", 0.25: "alpha", 0.5: "alpha beta", 1: "alpha beta gamma delta" };
    const script = [
      [0.5, 0.5, 0.5, 0],
      [0.5, 0.5, 0.5, 0.5],
      [0.5, 0.5, 0.5, 0.25],
      [0.25, 0.5, 0.5, 0.5],
      [1, 1, 1, 1],
      [1, 1, 1, 1],
    ];
    const lines = script.flatMap((vs, step) =>
      vs.map((v, k) => JSON.stringify({ id: `${step}-${k}`, group: `g${step}`, step, completion: text[v] })),
    );
    writeFileSync(join(dir, "all.jsonl"), lines.join("\n") + "\n");
    writeFileSync(join(dir, "a.jsonl"), lines.slice(0, 12).join("\n") + "\n");
    writeFileSync(join(dir, "b.jsonl"), lines.slice(12).join("\n") + "\n");
    const one = join(dir, "one.state.json");
    const two = join(dir, "two.state.json");
    expect(
      cli(["score", join(dir, "all.jsonl"), "--spec", spec, "-o", join(dir, "x.jsonl"), "-q", "--state", one]).code,
    ).toBe(0);
    expect(
      cli(["score", join(dir, "a.jsonl"), "--spec", spec, "-o", join(dir, "y.jsonl"), "-q", "--state", two]).code,
    ).toBe(0);
    expect(
      cli(["score", join(dir, "b.jsonl"), "--spec", spec, "-o", join(dir, "z.jsonl"), "-q", "--state", two]).code,
    ).toBe(0);
    const a = JSON.parse(readFileSync(one, "utf8"));
    expect(JSON.parse(readFileSync(two, "utf8"))).toEqual(a);
    expect(a.schedules["components.loc.passThreshold"].history).toEqual([
      [0, 0.25],
      [2, 0.5],
      [4, 0.75],
      [5, 1],
    ]);
    const t = cli(["check", spec, "--steps", "0,2,4,5", "--state", one, "--json"]);
    expect(JSON.parse(t.stdout).values["components.loc.passThreshold"]).toEqual([0.25, 0.5, 0.75, 1]);
    // a state from another schedule is a user error
    writeFileSync(spec, readFileSync(spec, "utf8").replace("window: 4", "window: 8"));
    const bad = cli(["score", join(dir, "b.jsonl"), "--spec", spec, "-o", join(dir, "w.jsonl"), "-q", "--state", one]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/components.loc.passThreshold: the state was saved with other schedule options/);
  });

  it("spec errors for schedules name the field", () => {
    const spec = join(dir, "bad.yaml");
    writeFileSync(
      spec,
      `components:
  - name: a
    type: overlong
    maxLength: 100
    bufferLength: 20
    penaltyFactor: {schedule: linear, from: 1, to: -1, endStep: 10}
  - {name: b, type: exact, weight: {schedule: wobble}}
`,
    );
    let r = cli(["check", spec]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /bad.yaml:7:\d+ components\[1\].weight.schedule: unknown schedule "wobble"; known: constant, cosine, exponential, linear, performance, piecewise/,
    );
    writeFileSync(spec, readFileSync(spec, "utf8").replace("{schedule: wobble}", "1"));
    r = cli(["check", spec]);
    expect(r.stderr).toMatch(
      /bad.yaml:6:\d+ components\[0\].penaltyFactor: .*when the linear schedule of penaltyFactor is at -1/,
    );
  });
});
