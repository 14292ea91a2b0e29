import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { cli, readJsonl, ROOT, tmp } from "./helpers.js";

interface Scored {
  id: string;
  group: string;
  reward: number | null;
  advantage: number | null;
  components: Record<string, { score: number | null; status: string; reason?: string }>;
  labels: { peer_correct: boolean };
}

describe("rewardkit score on the 800 bundled real rollouts", () => {
  const dir = tmp();
  const out = join(dir, "deep/scored.jsonl");
  const sum = join(dir, "deep/summary.json");
  const r = cli([
    "score",
    "examples/data/math-rollouts.jsonl",
    "--spec",
    "examples/math.yaml",
    "--label",
    "labels.peer_correct",
    "-o",
    out,
    "--summary",
    sum,
  ]);

  it("exits 0 and writes every rollout in input order with reward, components and advantage", () => {
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const rows = readJsonl<Scored>(out);
    expect(rows).toHaveLength(800);
    expect(rows[0]!.id).toBe("math-0-0");
    expect(rows[799]!.id).toBe("math-99-7");
    for (const row of rows) {
      expect(Object.keys(row.components)).toEqual(["accuracy", "format", "overlong"]);
      expect(typeof row.reward).toBe("number");
      expect(typeof row.advantage).toBe("number");
    }
  });

  it("math agrees with the peer grader on >= 98.5 %, and the summary says so", () => {
    const rows = readJsonl<Scored>(out);
    const agree = rows.filter((x) => (x.components.accuracy!.score === 1) === x.labels.peer_correct).length;
    expect(agree / 800).toBeGreaterThanOrEqual(0.985);
    const s = JSON.parse(readFileSync(sum, "utf8"));
    expect(s.count).toBe(800);
    expect(s.label.n).toBe(800);
    expect(s.label.agree).toBe(agree);
    expect(s.groups.count).toBe(100);
    // the summary shows that these responses use no think tags
    expect(s.components.format.passRate).toBe(0);
    expect(s.components.format.reasons).toEqual({ format_mismatch: 800 });
    expect(r.stdout).toContain("label labels.peer_correct vs accuracy");
  });

  it("advantages are GRPO (verl) over each group of 8", () => {
    const rows = readJsonl<Scored>(out);
    const g = rows.filter((x) => x.group === rows[0]!.group);
    expect(g).toHaveLength(8);
    const rs = g.map((x) => x.reward!);
    const mean = rs.reduce((a, b) => a + b, 0) / 8;
    const std = Math.sqrt(rs.reduce((a, b) => a + (b - mean) ** 2, 0) / 7);
    g.forEach((x) => expect(x.advantage).toBeCloseTo((x.reward! - mean) / (std + 1e-6), 9));
    const s = JSON.parse(readFileSync(sum, "utf8"));
    const byGroup = new Map<string, number[]>();
    for (const x of rows) byGroup.set(x.group, [...(byGroup.get(x.group) ?? []), x.reward!]);
    const zeroVar = [...byGroup.values()].filter((v) => v.every((y) => y === v[0])).length;
    expect(zeroVar).toBeGreaterThan(0);
    expect(s.groups.zeroVarianceFraction).toBeCloseTo(zeroVar / 100, 6);
  });
});

describe("bad input never sinks the batch", () => {
  const dir = tmp();
  const input = join(dir, "mixed.jsonl");
  const lines = [
    JSON.stringify({ id: "good", group: "g1", completion: "so \\boxed{42}", reference: "42" }),
    "{not json",
    JSON.stringify({ id: "noref", group: "g1", completion: "\\boxed{7}" }),
    JSON.stringify({ id: "nocompletion", group: "g1" }),
    JSON.stringify({ id: "wrong", group: "g1", completion: "\\boxed{41}", reference: "42" }),
  ];
  writeFileSync(input, lines.join("\n") + "\n");
  const spec = join(dir, "spec.yaml");
  writeFileSync(
    spec,
    "components:\n  - {name: accuracy, type: math}\n  - {name: evil, type: regex, pattern: '^(a+)+$', timeoutMs: 200, weight: 0}\n",
  );

  it("reports malformed lines with file:line and field, scores the rest, marks unscorable with reasons", () => {
    const out = join(dir, "out.jsonl");
    const r = cli(["score", input, "--spec", spec, "-o", out, "--summary", join(dir, "s.json")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`skipped ${input}:2: invalid JSON`);
    expect(r.stderr).toContain(`skipped ${input}:4 completion: missing`);
    const rows = readJsonl<Scored>(out);
    expect(rows.map((x) => x.id)).toEqual(["good", "noref", "wrong"]);
    expect(rows[0]!.components.accuracy!.score).toBe(1);
    expect(rows[1]!.components.accuracy).toMatchObject({ score: null, status: "unscorable", reason: "no_reference" });
    expect(rows[1]!.reward).toBe(0);
    expect(rows[2]!.components.accuracy).toMatchObject({ score: 0, status: "ok", reason: "wrong_answer" });
    const s = JSON.parse(readFileSync(join(dir, "s.json"), "utf8"));
    expect(s.malformed).toBe(2);
    expect(s.components.accuracy.reasons).toEqual({ no_reference: 1, wrong_answer: 1 });
  });

  it("a runaway verifier is stopped at its deadline and the run finishes", () => {
    const runaway = join(dir, "runaway.jsonl");
    writeFileSync(
      runaway,
      [
        JSON.stringify({ id: "r1", group: "g", completion: "a".repeat(40) + "b \\boxed{1}", reference: "1" }),
        JSON.stringify({ id: "r2", group: "g", completion: "aaa \\boxed{2}", reference: "2" }),
      ].join("\n"),
    );
    const out = join(dir, "runaway.out.jsonl");
    const r = cli(["score", runaway, "--spec", spec, "-o", out]);
    expect(r.code).toBe(0);
    const rows = readJsonl<Scored>(out);
    expect(rows[0]!.components.evil).toMatchObject({ score: null, status: "unscorable", reason: "timeout" });
    expect(rows[0]!.components.accuracy!.score).toBe(1);
    // the terminated worker was replaced: the next rollout is judged normally
    expect(rows[1]!.components.evil).toMatchObject({ score: 0, status: "ok", reason: "no_match" });
    expect(rows[1]!.components.accuracy!.score).toBe(1);
  });

  it("a runaway CAS computation (a sum to 10^9) is stopped at the math deadline", () => {
    const mathSpec = join(dir, "math-deadline.yaml");
    writeFileSync(mathSpec, "components:\n  - {name: accuracy, type: math, timeoutMs: 1500}\n");
    const file = join(dir, "cas.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({
          id: "spin",
          group: "g",
          completion: "\\boxed{\\sum_{n=1}^{10^{9}} n}",
          reference: "500000000500000000",
        }),
        JSON.stringify({ id: "next", group: "g", completion: "\\boxed{\\frac{1}{2}}", reference: "0.5" }),
      ].join("\n"),
    );
    const out = join(dir, "cas.out.jsonl");
    const t0 = Date.now();
    const r = cli(["score", file, "--spec", mathSpec, "-o", out, "-q", "--concurrency", "1"]);
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(30_000); // unbounded without the deadline
    const rows = readJsonl<Scored>(out);
    expect(rows[0]!.components.accuracy).toMatchObject({ score: null, status: "unscorable", reason: "timeout" });
    expect(rows[1]!.components.accuracy).toMatchObject({ score: 1, status: "ok" });
  });

  it("--cache-size sizes the verdict cache (0 disables it): the same scores, and a bad value is a usage error", () => {
    const outs = ["default", "0"].map((size) => {
      const out = join(dir, `cache-${size}.jsonl`);
      const r = cli([
        "score",
        input,
        "--spec",
        spec,
        "-o",
        out,
        "-q",
        ...(size === "default" ? [] : ["--cache-size", size]),
      ]);
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(out, "utf8");
    });
    expect(outs[1]).toBe(outs[0]);
    const bad = cli(["score", input, "--spec", spec, "--cache-size", "-1", "-q"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--cache-size.*non-negative integer/);
  });

  it("--strict makes the first malformed line fatal (exit 1, file:line)", () => {
    const r = cli(["score", input, "--spec", spec, "--strict", "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${input}:2 invalid JSON`);
  });

  it("onUnscorable: exclude makes reward and advantage null", () => {
    const ex = join(dir, "exclude.yaml");
    writeFileSync(ex, "components:\n  - {name: accuracy, type: math}\nonUnscorable: exclude\n");
    const rows = readJsonl<Scored>(
      (() => {
        const out = join(dir, "ex.jsonl");
        expect(cli(["score", input, "--spec", ex, "-o", out, "-q"]).code).toBe(0);
        return out;
      })(),
    );
    expect(rows[1]).toMatchObject({ id: "noref", reward: null, advantage: null });
    // the group's statistics use the two scored rollouts only: rewards [1, 0] → ±0.5/(0.7071+1e-6)
    expect(rows[0]!.advantage).toBeCloseTo(0.5 / (Math.SQRT1_2 + 1e-6), 9);
  });
});

describe("input formats", () => {
  it("reads gzip and stdin, maps field names, hashes the prompt into a group", () => {
    const dir = tmp();
    const recs = [
      { response: "\\boxed{3}", answer: { value: "3" }, prompt: "1+2?" },
      { response: "\\boxed{4}", answer: { value: "3" }, prompt: "1+2?" },
      { response: "\\boxed{9}", answer: { value: "9" }, prompt: "3*3?" },
    ];
    const text = recs.map((x) => JSON.stringify(x)).join("\n");
    writeFileSync(join(dir, "in.jsonl.gz"), gzipSync(text));
    writeFileSync(join(dir, "s.yaml"), "components:\n  - {name: accuracy, type: math}\n");
    const args = [
      "--spec",
      join(dir, "s.yaml"),
      "--map",
      "completion=response",
      "--map",
      "reference=answer.value",
      "-q",
    ];
    const fromGz = cli(["score", join(dir, "in.jsonl.gz"), ...args]);
    const fromStdin = cli(["score", "-", ...args], text);
    expect(fromGz.code).toBe(0);
    expect(fromStdin.stdout).toBe(fromGz.stdout);
    const rows = fromGz.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Scored & { response: string });
    expect(rows.map((x) => x.reward)).toEqual([1, 0, 1]);
    expect(rows[0]!.response).toBe("\\boxed{3}"); // the input record is kept as it was
    expect(rows[0]!.group).toBe(rows[1]!.group);
    expect(rows[0]!.group).not.toBe(rows[2]!.group);
    expect(rows.map((x) => x.id)).toEqual(["line-1", "line-2", "line-3"]);
  });
});

describe("rewardkit check", () => {
  it("prints what the spec computes", () => {
    const r = cli(["check", "examples/math.yaml"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("reward = 1·accuracy + 1·overlong");
    expect(r.stdout).toContain("advantage: grpo");
  });
  it("exits 1 naming file, line and field", () => {
    const dir = tmp();
    writeFileSync(join(dir, "bad.yaml"), "components:\n  - name: a\n    type: math\n    weight: high\n");
    const r = cli(["check", join(dir, "bad.yaml")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `rewardkit: ${join(dir, "bad.yaml")}:4:5 components[0].weight: expected number, received string\n`,
    );
  });
});

describe("rewardkit advantages", () => {
  it("recomputes advantages from id, group, reward only, with another estimator", () => {
    const dir = tmp();
    const rows = [
      { id: "a", group: "g", reward: 1 },
      { id: "b", group: "g", reward: 0 },
      { id: "c", group: "g", reward: 0.5 },
      { id: "d", group: "h", reward: 1 },
      { id: "e", group: "h", reward: null },
    ];
    writeFileSync(join(dir, "in.jsonl"), rows.map((x) => JSON.stringify(x)).join("\n"));
    const r = cli(["advantages", join(dir, "in.jsonl"), "--estimator", "rloo"]);
    expect(r.code).toBe(0);
    const got = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).advantage);
    expect(got[0]).toBeCloseTo(0.75, 12); // 1 − mean(0, 0.5)
    expect(got[1]).toBeCloseTo(-0.75, 12);
    expect(got[2]).toBeCloseTo(0, 12);
    expect(got[3]).toBe(0); // singleton once the null is left out
    expect(got[4]).toBeNull();
    const t = cli(["advantages", join(dir, "in.jsonl"), "--estimator", "grpo", "--preset", "trl"]);
    const a0 = JSON.parse(t.stdout.split("\n")[0]!).advantage;
    expect(a0).toBeCloseTo(0.5 / (0.5 + 1e-4), 12);
    expect(cli(["advantages", join(dir, "in.jsonl"), "--estimator", "ppo"]).code).toBe(1);
  });
});

describe("multi-component advantages through rewardkit score", () => {
  it("gdpo defaults to the counting components with the spec's weights; --preset verl whitens per token", () => {
    const dir = tmp();
    const L = [100, 300, 50, 400, 200, 10];
    const rows = [
      { id: "a", group: "g", completion: "\\boxed{1} ok", reference: "1" },
      { id: "b", group: "g", completion: "\\boxed{1}", reference: "1" },
      { id: "c", group: "g", completion: "\\boxed{2} ok", reference: "1" },
      { id: "d", group: "g", completion: "\\boxed{2}", reference: "1" },
      { id: "e", group: "h", completion: "\\boxed{3} ok", reference: "3" },
      { id: "f", group: "h", completion: "\\boxed{4}", reference: "3" },
    ].map((row, i) => ({ ...row, completion_tokens: L[i] }));
    writeFileSync(join(dir, "in.jsonl"), rows.map((x) => JSON.stringify(x)).join("\n"));
    writeFileSync(
      join(dir, "s.yaml"),
      "components:\n  - {name: accuracy, type: math}\n  - {name: polite, type: contains, value: ok, weight: 0.5}\n  - {name: format, type: think-format, weight: 0}\nadvantage: {estimator: gdpo, preset: verl}\n",
    );
    const r = cli(["score", join(dir, "in.jsonl"), "--spec", join(dir, "s.yaml"), "-q"]);
    expect(r.stderr).toBe("");
    const got = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).advantage as number);
    // by hand: per component (r − μ_g)/(σ_unbiased + 1e-6) within each group, x = 1·A_acc + 0.5·A_polite,
    // then verl's masked_whiten over tokens: each rollout counted completion_tokens times, unbiased over the
    // W = Σ L tokens, (x − mean)/sqrt(var + 1e-8); the weight-0 format component is left out
    const norm = (v: number[]) => {
      const m = v.reduce((a, b) => a + b, 0) / v.length;
      const s = Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1));
      return v.map((x) => (x - m) / (s + 1e-6));
    };
    const acc = [...norm([1, 1, 0, 0]), ...norm([1, 0])];
    const pol = [...norm([1, 0, 1, 0]), ...norm([1, 0])];
    const x = acc.map((a, i) => a + 0.5 * pol[i]!);
    const W = L.reduce((a, b) => a + b, 0);
    const m = x.reduce((a, b, i) => a + L[i]! * b, 0) / W;
    const v = x.reduce((a, b, i) => a + L[i]! * (b - m) ** 2, 0) / (W - 1);
    x.forEach((xi, i) => expect(got[i]).toBeCloseTo((xi - m) / Math.sqrt(v + 1e-8), 9));
  });
});

describe("mistakes are loud", () => {
  const dir = tmp();
  const input = join(dir, "in.jsonl");
  writeFileSync(
    input,
    [
      { response: "\\boxed{1}", answer: "1", prompt: "a" },
      { response: "\\boxed{2}", answer: "1", prompt: "a" },
    ]
      .map((x) => JSON.stringify(x))
      .join("\n"),
  );

  it("an unknown --map field is an error with a hint", () => {
    const r = cli(["score", input, "--spec", "examples/math.yaml", "--map", "completions=response", "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '--map completions=response: "completions" is not a field rewardkit reads (did you mean "completion"?)',
    );
  });

  it("a --map source that no record has is a warning", () => {
    const r = cli([
      "score",
      input,
      "--spec",
      "examples/math.yaml",
      "--map",
      "completion=response",
      "--map",
      "reference=answers",
      "-q",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: --map reference=answers: no input record has "answers"');
  });

  it("a --label path that no rollout has is a warning", () => {
    const r = cli([
      "score",
      input,
      "--spec",
      "examples/math.yaml",
      "--map",
      "completion=response",
      "--map",
      "reference=answer",
      "--label",
      "labels.ok",
      "-q",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('warning: --label labels.ok: no rollout has a boolean "labels.ok"\n');
  });

  it("a run that scores nothing exits 1", () => {
    const r = cli(["score", input, "--spec", "examples/math.yaml", "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`rewardkit: ${input}: no rollout could be scored: all 2 lines were malformed`);
    const a = cli(["advantages", input, "-q"]);
    expect(a.code).toBe(1);
    expect(a.stdout).toBe("");
    expect(a.stderr).toContain(`rewardkit: ${input}: no rollout could be read: all 2 lines were malformed`);
  });

  it("a missing input file is a user error (exit 1), also when gzipped", () => {
    for (const cmd of [
      ["score", join(dir, "none.jsonl.gz"), "--spec", "examples/math.yaml", "-q"],
      ["advantages", join(dir, "none.jsonl.gz"), "-q"],
    ]) {
      const r = cli(cmd);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`rewardkit: ENOENT: no such file or directory, open '${join(dir, "none.jsonl.gz")}'\n`);
    }
  });

  it("a reader that closes stdout early (| head) ends the run quietly with exit 0, not an internal error", async () => {
    const child = spawn(
      process.execPath,
      [
        join(ROOT, "bin/rewardkit.js"),
        "score",
        "examples/data/math-rollouts.jsonl",
        "--spec",
        "examples/math.yaml",
        "-q",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("a JSON spec is parsed as strict JSON, with the position of the error", () => {
    const spec = join(dir, "s.json");
    writeFileSync(spec, '{"components": [{"name": "a", "type": "math",}]}');
    const r = cli(["check", spec]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^rewardkit: ${spec}:1:\\d+: `));
  });
});

describe("advantage diagnostics", () => {
  it("under onUnscorable: zero, an unscorable component and a 0 are one outcome (no false 'collapse')", () => {
    const dir = tmp();
    writeFileSync(
      join(dir, "s.yaml"),
      'components:\n  - {name: evil, type: regex, pattern: "^(a+)+$", timeoutMs: 300}\n',
    );
    writeFileSync(
      join(dir, "in.jsonl"),
      ["aaa", "aab", "a".repeat(40) + "b"]
        .map((c, i) => JSON.stringify({ id: String(i), group: "g", completion: c }))
        .join("\n"),
    );
    const r = cli([
      "score",
      join(dir, "in.jsonl"),
      "--spec",
      join(dir, "s.yaml"),
      "-o",
      join(dir, "o.jsonl"),
      "--summary",
      join(dir, "s.json"),
      "--concurrency",
      "1",
      "-q",
    ]);
    expect(r.code).toBe(0);
    const s = JSON.parse(readFileSync(join(dir, "s.json"), "utf8"));
    expect(s.components.evil.reasons).toEqual({ no_match: 1, timeout: 1 });
    expect(s.advantage.diagnostics.collapse.collapsedGroups).toBe(0);
  });
});
