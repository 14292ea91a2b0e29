import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../src/spec/compile.js";
import { createScorer } from "../src/engine/scorer.js";
import type { ComponentResult, Rollout } from "../src/core/types.js";
import { compileParser } from "../src/verifiers/judge/parse.js";
import { weightedJudgePreference } from "../src/verifiers/likelihood/judge.js";
import type { TopLogprob } from "../src/verifiers/likelihood/judge.js";
import { chatCompletion, promptOf, startReplay } from "../src/client/replay.test-helper.js";
import type { ReplayServer, Reply } from "../src/client/replay.test-helper.js";
import { ROOT } from "./helpers.js";

/**
 * The judge against recorded real judges, served by a local OpenAI-compatible replay server that answers each
 * rendered prompt with the recorded judgment (found by a tag the template carries). `RK_JUDGES_FULL=1`
 * (`npm run e2e:judges`) sends every record through HTTP; by default a subset does (every record is still parsed).
 */
const FULL = process.env.RK_JUDGES_FULL === "1";
const gz = <T>(p: string): T[] =>
  gunzipSync(readFileSync(join(ROOT, p)))
    .toString("utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
const TAG = /Judge-Tag: (\S+)/;

async function scoreAll(
  component: Record<string, unknown>,
  rollouts: Rollout[],
): Promise<{ results: ComponentResult[]; usage: Record<string, number> }> {
  const r = compileSpec({ components: [{ name: "judge", type: "judge", model: "gpt-4", ...component }] }, "t");
  if ("issues" in r) throw new Error(JSON.stringify(r.issues));
  const scorer = createScorer(r.spec, { concurrency: 1 });
  try {
    const results = await Promise.all(rollouts.map(async (x) => (await scorer.score(x)).results[0]!));
    return { results, usage: scorer.usage().judge as unknown as Record<string, number> };
  } finally {
    await scorer.close();
  }
}

// ---------------------------------------------------------------- arena-bench-v1: 4 500 GPT-4 single-answer judgments
interface ArenaRecord {
  question_id: string;
  model: string;
  judgment: string;
  score: number | null;
}
const ARENA = {
  dev: gz<ArenaRecord>("test/fixtures/arena-bench-v1/judgments-dev.jsonl.gz"),
  heldout: gz<ArenaRecord>("test/fixtures/arena-bench-v1/judgments-heldout.jsonl.gz"),
};
const PATTERN = { pattern: "\\[\\[(\\d+(?:\\.\\d+)?)\\]\\]", min: 1, max: 10 };
const DECIMAL = /\[\[(\d+\.\d+)\]\]/;

describe("arena-bench-v1: the [[n]] parser reproduces GPT-4's recorded ratings", () => {
  it.each([
    ["dev", 2400, 2382, 1, 17],
    ["heldout", 2100, 2079, 3, 18],
  ] as const)(
    "%s split: %i judgments, %i recorded scores reproduced, %i decimals the peer parser rejected, %i without a rating",
    (split, n, scored, decimals, none) => {
      const parser = compileParser(PATTERN);
      const recs = ARENA[split];
      expect(recs).toHaveLength(n);
      let same = 0;
      let dec = 0;
      let err = 0;
      for (const r of recs) {
        const p = parser.parse(r.judgment);
        if (r.score !== null) {
          if (!("error" in p) && Math.abs(p.score - (r.score - 1) / 9) <= 1e-12) same++;
        } else if (DECIMAL.test(r.judgment)) {
          if (!("error" in p) && p.value === Number(DECIMAL.exec(r.judgment.slice(r.judgment.lastIndexOf("[[")))![1]))
            dec++;
        } else if ("error" in p) err++;
      }
      expect([same, dec, err]).toEqual([scored, decimals, none]);
      // the preset says the same
      const mt = compileParser("mt-bench");
      expect(
        recs.every(
          (r) =>
            JSON.stringify(mt.parse(r.judgment)) ===
            JSON.stringify(parser.parse(r.judgment)).replace(/pattern \/.*?\//, "mt-bench"),
        ),
      ).toBe(true);
    },
  );

  describe("through HTTP", () => {
    const all = [...ARENA.dev, ...ARENA.heldout];
    let server: ReplayServer;
    beforeAll(async () => {
      server = await startReplay((r): Reply => {
        const k = TAG.exec(promptOf(r.body))?.[1];
        const rec = k === undefined ? undefined : all[Number(k)];
        return { json: chatCompletion([rec ? rec.judgment : "no record"]) };
      });
    });
    afterAll(() => server.close());

    it(`every sent judgment scores as recorded; no rating → judge_error with details.raw (${FULL ? "all 4500" : "subset"})`, async () => {
      const picked = all.map((r, i) => ({ r, i })).filter(({ r, i }) => FULL || r.score === null || i % 25 === 0);
      const rollouts: Rollout[] = picked.map(({ i }) => ({
        id: `a${i}`,
        group: "g",
        prompt: "q",
        completion: `answer ${i}`,
        metadata: { key: i },
      }));
      const { results, usage } = await scoreAll(
        {
          baseUrl: `${server.url}/v1`,
          template: "Judge-Tag: {{item.metadata.key}}\n[Question]\n{{prompt}}\n[Answer]\n{{completion}}",
          parse: PATTERN,
          temperature: 0,
          maxTokens: 1024,
        },
        rollouts,
      );
      let bad = 0;
      picked.forEach(({ r }, k) => {
        const got = results[k]!;
        if (r.score !== null) bad += got.score !== null && Math.abs(got.score - (r.score - 1) / 9) <= 1e-12 ? 0 : 1;
        else if (DECIMAL.test(r.judgment)) bad += got.score !== null ? 0 : 1;
        else
          bad +=
            got.score === null &&
            got.reason === "judge_error" &&
            typeof got.details?.raw === "string" &&
            r.judgment.includes(String(got.details.raw).slice(0, 200))
              ? 0
              : 1;
      });
      expect(bad).toBe(0);
      expect(results.filter((x) => x.reason === "judge_error")).toHaveLength(35);
      expect(usage).toMatchObject({ calls: picked.length, retries: 0, failures: 0 });
    });
  });
});

// ---------------------------------------------------------------- Prometheus: rubric calibration against GPT-4's 3 samples
interface PromRecord {
  idx: number;
  source: string;
  feedback: string[];
  scores: number[];
}
const PROM = {
  dev: gz<PromRecord>("test/fixtures/prometheus-rubric/dev-mt-bench.jsonl.gz"),
  heldout: gz<PromRecord>("test/fixtures/prometheus-rubric/heldout-vicuna.jsonl.gz"),
};
function pearson(x: readonly number[], y: readonly number[]): number {
  const mx = x.reduce((a, b) => a + b, 0) / x.length;
  const my = y.reduce((a, b) => a + b, 0) / y.length;
  let sxy = 0;
  let sx = 0;
  let sy = 0;
  x.forEach((a, k) => {
    sxy += (a - mx) * (y[k]! - my);
    sx += (a - mx) ** 2;
    sy += (y[k]! - my) ** 2;
  });
  return sxy / Math.sqrt(sx * sy);
}

describe("prometheus rubric judge (GPT-4 feedback replayed with its [RESULT] n)", () => {
  let server: ReplayServer;
  const all = [...PROM.dev, ...PROM.heldout];
  beforeAll(async () => {
    server = await startReplay((r): Reply => {
      const rec = all[Number(TAG.exec(promptOf(r.body))![1])]!;
      const n = typeof r.body.n === "number" ? r.body.n : 1;
      return {
        json: chatCompletion(
          Array.from({ length: n }, (_, j) => `Feedback: ${rec.feedback[j]} [RESULT] ${rec.scores[j]}`),
        ),
      };
    });
  });
  afterAll(() => server.close());
  const T =
    "Judge-Tag: {{item.metadata.key}}\n###Response to evaluate:\n{{completion}}\n###Score Rubrics: …\n###Feedback: ";

  it.each([
    { name: "dev (mt-bench)", split: "dev", offset: 0, r1: 0.951868, self: 0.851054 },
    { name: "held-out (vicuna)", split: "heldout", offset: 320, r1: 0.928807, self: 0.808547 },
  ] as const)(
    "$name: one judgment vs the mean of GPT-4's three, Pearson $r1; GPT-4 sample vs sample $self",
    async ({ split, offset, r1, self }) => {
      const recs = PROM[split];
      const rollouts: Rollout[] = recs.map((_, k) => ({
        id: `p${k}`,
        group: "g",
        completion: `response ${k}`,
        metadata: { key: offset + k },
      }));
      const one = await scoreAll({ baseUrl: `${server.url}/v1`, template: T, parse: "prometheus" }, rollouts);
      const mean3 = recs.map((r) => r.scores.reduce((a, b) => a + b, 0) / 3);
      const s1 = one.results.map((x) => x.score! * 4 + 1);
      expect(s1).toEqual(recs.map((r) => r.scores[0]));
      expect(pearson(s1, mean3)).toBeCloseTo(r1, 6);
      const pairs: Array<[number, number]> = [
        [0, 1],
        [0, 2],
        [1, 2],
      ];
      expect(
        pairs
          .map(([a, b]) =>
            pearson(
              recs.map((r) => r.scores[a]!),
              recs.map((r) => r.scores[b]!),
            ),
          )
          .reduce((a, b) => a + b, 0) / 3,
      ).toBeCloseTo(self, 6);
      // samples: 3 (n = 3 in one request) averages the three: the mean of GPT-4's scores exactly, correlation 1
      const some = rollouts.filter((_, k) => FULL || k % 8 === 0);
      const three = await scoreAll(
        { baseUrl: `${server.url}/v1`, template: T, parse: "prometheus", samples: 3, temperature: 1 },
        some,
      );
      three.results.forEach((x, k) => expect(x.score).toBeCloseTo((mean3[Number(some[k]!.id.slice(1))]! - 1) / 4, 12));
      expect(three.usage.calls).toBe(some.length);
    },
  );
});

// ---------------------------------------------------------------- RewardBench best-of-16: log-prob weighted preferences
interface Annotation {
  instruction: string;
  preference: number;
  raw_completion: {
    logprobs?: { content: Array<{ token: string; logprob: number; top_logprobs: TopLogprob[] }> };
  } | null;
}
describe("reward-bench-bon: AlpacaEval weighted-judge preferences from replayed top-5 log-probs", () => {
  const rows = gz<Annotation>("test/fixtures/reward-bench-bon/judgments.jsonl.gz");
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplay((r): Reply => {
      const row = rows[Number(TAG.exec(promptOf(r.body))![1])]!;
      const lp = row.raw_completion?.logprobs;
      return { json: chatCompletion([lp ? lp.content[0]!.token : ""], [lp ? { content: lp.content } : null]) };
    });
  });
  afterAll(() => server.close());

  it(`score = P(m)/(P(m)+P(M)) from the judge's top-5, the recorded preference is 1 + score or 2 − score; no log-probs → judge_error (${FULL ? "all 8855" : "subset"})`, async () => {
    const picked = rows
      .map((r, i) => ({ r, i }))
      .filter(({ r, i }) => FULL || !r.raw_completion?.logprobs || i % 20 === 0);
    const rollouts: Rollout[] = picked.map(({ r, i }) => ({
      id: `b${i}`,
      group: r.instruction,
      prompt: r.instruction,
      completion: `sample ${i}`,
      metadata: { key: i },
    }));
    const { results } = await scoreAll(
      {
        baseUrl: `${server.url}/v1`,
        template: "Judge-Tag: {{item.metadata.key}}\n{{prompt}}\nOutput (m): {{reference}}\nOutput (M): {{completion}}",
        parse: { labels: ["m", "M"], passing: ["m"] },
        logprobs: { tokens: { m: 1, M: 0 }, topLogprobs: 5 },
        maxTokens: 1,
      },
      rollouts.map((x) => ({ ...x, reference: "the gpt-3.5-turbo output" })),
    );
    let exact = 0;
    let fits = 0;
    let errors = 0;
    picked.forEach(({ r }, k) => {
      const got = results[k]!;
      const top = r.raw_completion?.logprobs?.content[0]?.top_logprobs;
      if (!top) {
        if (got.score === null && got.reason === "judge_error") errors++;
        return;
      }
      if (got.score !== null && Math.abs(got.score - (weightedJudgePreference(top, false)! - 1)) <= 1e-12) exact++;
      if (
        got.score !== null &&
        (Math.abs(1 + got.score - r.preference) <= 1e-9 || Math.abs(2 - got.score - r.preference) <= 1e-9)
      )
        fits++;
      expect(got.details).toMatchObject({ scoredBy: "logprobs" });
    });
    const withLp = picked.filter(({ r }) => r.raw_completion?.logprobs).length;
    expect(withLp).toBe(FULL ? 8826 : 439);
    expect([exact, fits, errors]).toEqual([withLp, withLp, 29]);
  });
});
