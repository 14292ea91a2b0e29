import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { likelihoodVerifier } from "../src/verifiers/likelihood/index.js";
import type { Rollout } from "../src/core/types.js";
import { cli, readJsonl, ROOT, tmp } from "./helpers.js";

const SNAP = join(ROOT, "test/fixtures/tgi-logprob-snapshots/__snapshots__");

interface Row {
  id: string;
  group: string;
  prompt: string | null;
  completion: string;
  reference: string;
  reference_logprobs: number[];
  completion_tokens: number;
  components: Record<string, { score: number | null; status: string; reason?: string }>;
}
interface TgiToken {
  text: string;
  logprob: number | null;
  special: boolean;
}
interface TgiResponse {
  generated_text: string;
  details: { tokens: TgiToken[]; prefill: TgiToken[]; generated_tokens: number };
}

function snapshots(): Array<{ file: string; responses: TgiResponse[] }> {
  const out: Array<{ file: string; responses: TgiResponse[] }> = [];
  for (const dir of readdirSync(SNAP).sort()) {
    for (const f of readdirSync(join(SNAP, dir))
      .filter((n) => n.endsWith(".json"))
      .sort()) {
      const data = JSON.parse(readFileSync(join(SNAP, dir, f), "utf8")) as unknown;
      const items = (Array.isArray(data) ? data : [data]) as Array<Partial<TgiResponse>>;
      out.push({
        file: `${dir}/${f.replace(/\.json$/, "")}`,
        responses: items.filter((x) => x && x.details && Array.isArray(x.details.tokens)) as TgiResponse[],
      });
    }
  }
  return out;
}

const near = (got: number | null | undefined, want: number) =>
  typeof got === "number" && Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));

describe("rewardkit score examples/data/likelihood-rollouts.jsonl --spec examples/likelihood.yaml", () => {
  const dir = tmp();
  const out = join(dir, "scored.jsonl");
  const sum = join(dir, "summary.json");
  const r = cli([
    "score",
    "examples/data/likelihood-rollouts.jsonl",
    "--spec",
    "examples/likelihood.yaml",
    "-o",
    out,
    "--summary",
    sum,
  ]);

  it("gives exactly the sum, mean, mean of exp and exp of sum of every rollout's reference_logprobs", () => {
    expect(r.code).toBe(0);
    const rows = readJsonl<Row>(out);
    expect(rows).toHaveLength(299);
    let tokens = 0;
    for (const row of rows) {
      const lp = row.reference_logprobs;
      tokens += lp.length;
      const s = lp.reduce((a, b) => a + b, 0);
      const c = row.components;
      expect(near(c.logprob!.score, s), row.id).toBe(true);
      expect(near(c["mean-logprob"]!.score, s / lp.length), row.id).toBe(true);
      expect(near(c["mean-prob"]!.score, lp.reduce((a, b) => a + Math.exp(b), 0) / lp.length), row.id).toBe(true);
      expect(near(c["seq-prob"]!.score, Math.exp(s)), row.id).toBe(true);
    }
    expect(tokens).toBe(3422); // 3460 generated tokens in the snapshots minus 38 special ones
  });

  it("the concentration check stays quiet on the real data, and the summary says so", () => {
    const s = JSON.parse(readFileSync(sum, "utf8")) as {
      concentration: Record<string, { groupsChecked: number; collapsedGroups: number }>;
    };
    expect(Object.keys(s.concentration)).toEqual(["logprob", "mean-logprob", "mean-prob", "seq-prob"]);
    for (const c of Object.values(s.concentration)) {
      expect(c.groupsChecked).toBe(49);
      expect(c.collapsedGroups).toBe(0);
    }
    expect(r.stdout).toMatch(/concentration mean-prob: 0\/49 groups collapsed/);
  });

  it("stays quiet too when trace lengths are counted in characters (no completion_tokens)", () => {
    const f = join(dir, "chars.jsonl");
    const rows = readFileSync(join(ROOT, "examples/data/likelihood-rollouts.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    writeFileSync(f, rows.map(({ completion_tokens: _drop, ...rest }) => JSON.stringify(rest)).join("\n") + "\n");
    const s2 = join(dir, "chars-summary.json");
    expect(
      cli(["score", f, "--spec", "examples/likelihood.yaml", "-o", join(dir, "chars-out.jsonl"), "--summary", s2, "-q"])
        .code,
    ).toBe(0);
    const c = JSON.parse(readFileSync(s2, "utf8")).concentration as Record<string, { collapsedGroups: number }>;
    expect(Object.values(c).map((x) => x.collapsedGroups)).toEqual([0, 0, 0, 0]);
  });

  it("fires on a constructed collapsed group: 4 traces of 1k–4k tokens, reference probability stuck near 0.62", () => {
    const f = join(dir, "collapsed.jsonl");
    const lines = [0, 1, 2, 3].map((k) =>
      JSON.stringify({
        id: `c${k}`,
        group: "collapsed",
        prompt: "p",
        completion: "x".repeat(10 + k),
        completion_tokens: 1000 * (k + 1),
        reference: "42",
        reference_logprobs: [Math.log(0.62 + k * 0.001), Math.log(0.62 - k * 0.001)],
      }),
    );
    const healthy = [0.1, 0.4, 0.7, 0.95].map((p, k) =>
      JSON.stringify({
        id: `h${k}`,
        group: "healthy",
        prompt: "q",
        completion: "y",
        completion_tokens: 100 + k,
        reference: "7",
        reference_logprobs: [Math.log(p)],
      }),
    );
    writeFileSync(f, [...lines, ...healthy].join("\n") + "\n");
    const s3 = join(dir, "collapsed-summary.json");
    const res = cli([
      "score",
      f,
      "--spec",
      "examples/likelihood.yaml",
      "-o",
      join(dir, "collapsed-out.jsonl"),
      "--summary",
      s3,
    ]);
    expect(res.code).toBe(0);
    const c = JSON.parse(readFileSync(s3, "utf8")).concentration as Record<
      string,
      { collapsedGroups: number; groupsChecked: number; examples: Array<{ firstRollout: number }> }
    >;
    expect(c["mean-prob"]).toMatchObject({ groupsChecked: 2, collapsedGroups: 1, examples: [{ firstRollout: 0 }] });
    expect(c["seq-prob"]!.collapsedGroups).toBe(1);
    expect(res.stdout).toMatch(/concentration mean-prob: 1\/2 groups collapsed/);
  });
});

describe("real TGI log-probs (tgi-logprob-snapshots)", () => {
  const snaps = snapshots();
  const responses = snaps.flatMap((s) => s.responses);
  const score = async (form: string, lp: unknown) => {
    const fn = likelihoodVerifier.create(likelihoodVerifier.options.parse({ form }));
    const rollout = { id: "a", group: "g", completion: "", reference_logprobs: lp } as Rollout;
    return fn({ completion: "", reference: undefined, rollout });
  };

  it("has the documented counts: 299 responses, 3460 generated tokens, 38 special", () => {
    expect(responses).toHaveLength(299);
    expect(responses.reduce((n, x) => n + x.details.tokens.length, 0)).toBe(3460);
    expect(responses.reduce((n, x) => n + x.details.tokens.filter((t) => t.special).length, 0)).toBe(38);
  });

  it("the example file carries exactly the non-special generated-token log-probs of every response", () => {
    const rows = readJsonl<Row>(join(ROOT, "examples/data/likelihood-rollouts.jsonl"));
    let k = 0;
    for (const s of snaps) {
      s.responses.forEach((x, i) => {
        const row = rows[k++]!;
        expect(row.id).toBe(`${s.file}#${i}`);
        const toks = x.details.tokens.filter((t) => !t.special);
        expect(row.reference_logprobs).toEqual(toks.map((t) => t.logprob));
        expect(row.reference).toBe(toks.map((t) => t.text).join(""));
        expect(row.completion_tokens).toBe(x.details.generated_tokens);
      });
    }
    expect(k).toBe(rows.length);
    expect(rows.filter((r) => r.prompt !== null)).toHaveLength(26);
  });

  it("sums a real response by hand: flash-llama all_params 'Test request failed: Error in test'", async () => {
    const x = snaps.find((s) => s.file === "test_flash_llama/test_flash_llama_all_params")!.responses[0]!;
    const lp = x.details.tokens.map((t) => t.logprob); // [-2.5839844, -0.44970703, -1.8339844, -1.0556641, 0]
    expect((await score("logprob", lp)).score).toBeCloseTo(-5.92333993, 12);
    expect((await score("mean-logprob", lp)).score).toBeCloseTo(-5.92333993 / 5, 12);
    expect((await score("seq-prob", lp)).score).toBeCloseTo(Math.exp(-5.92333993), 12);
  });

  it("teacher-forced prefill log-probs work as a reference span: mamba ' Learning?' after 'What is Deep'", async () => {
    const pre = snaps.find((s) => s.file === "test_mamba/test_mamba_load")!.responses[0]!.details.prefill;
    expect(pre.map((t) => t.text).join("")).toBe("What is Deep Learning?");
    const span = pre.slice(3).map((t) => t.logprob); // [-2.84375, -1.25]
    expect((await score("logprob", span)).score).toBe(-4.09375);
    expect((await score("mean-prob", span)).score).toBeCloseTo((Math.exp(-2.84375) + Math.exp(-1.25)) / 2, 14);
    // the first prefill token has no context and no log-prob: a span that includes it is not scorable
    expect(
      await score(
        "logprob",
        pre.map((t) => t.logprob),
      ),
    ).toMatchObject({
      status: "unscorable",
      reason: "logprob_error",
      details: { error: "[0]: expected a number, got null" },
    });
  });

  it("special tokens with a null log-prob (starcoder-gptq EOS) make the raw token list unscorable, never 0", async () => {
    const x = snaps.find((s) => s.file === "test_flash_starcoder_gptq/test_flash_starcoder_gptq")!.responses[0]!;
    expect(x.details.tokens.map((t) => [t.special, t.logprob])).toEqual([
      [false, -1.1679688],
      [true, null],
    ]);
    expect(
      await score(
        "logprob",
        x.details.tokens.map((t) => t.logprob),
      ),
    ).toMatchObject({ score: null, reason: "logprob_error" });
    expect(
      (
        await score(
          "logprob",
          x.details.tokens.filter((t) => !t.special).map((t) => t.logprob),
        )
      ).score,
    ).toBe(-1.1679688);
  });

  it("every generated token log-prob in the snapshots is ≤ 0 (the validation bound holds on real engines)", () => {
    const all = responses
      .flatMap((x) => x.details.tokens.map((t) => t.logprob))
      .filter((v): v is number => typeof v === "number");
    expect(all.length).toBe(3460 - 6); // six EOS tokens carry null
    expect(Math.max(...all)).toBe(0);
  });
});
