/**
 * `info-gain` with `source: http` end to end: `rewardkit score` (the built CLI, a child process) asks a local stub
 * vLLM endpoint for the gold answer's log-probs after each turn boundary. Beliefs and turn rewards by hand; the
 * prompts the stub received are exactly context_t ++ gold_ids; a malformed field names file:line:field[index].
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReplay } from "../src/client/replay.test-helper.js";
import type { ReplayServer } from "../src/client/replay.test-helper.js";
import { cliAsync, readJsonl, tmp } from "./helpers.js";

interface Scored {
  id: string;
  reward: number | null;
  components: Record<
    string,
    { score: number | null; reason?: string; turn_rewards?: number[]; details?: Record<string, unknown> }
  >;
}

const ln = Math.log;
// the gold answer [40, 41]'s token probabilities after each context, keyed by the request prompt's length:
// P_t = exp(mean ln p) = 0.25 (prompt alone), 0.5 (after turn 1), 0.4 (after turn 2)
const goldP: Record<number, [number, number]> = { 4: [0.5, 0.125], 6: [0.5, 0.5], 8: [0.8, 0.2] };
const rollout = {
  group: "g",
  completion: [
    { role: "assistant", content: "search(capital of France)" },
    { role: "tool", content: "Paris is the capital." },
    { role: "assistant", content: "search(population)" },
    { role: "tool", content: "2.1 million" },
    { role: "assistant", content: "Paris" },
  ],
  prompt_ids: [7, 8],
  completion_ids: [1, 2, 3, 4, 5, 6],
  turn_token_offsets: [2, 4, 6],
  gold_ids: [40, 41],
  outcome: 1,
};

describe("info-gain source http: rewardkit score against a local vLLM stub", () => {
  let srv: ReplayServer;
  let out: Scored[];
  let stderr: string;
  let input: string;
  beforeAll(async () => {
    srv = await startReplay((req) => {
      const prompt = req.body.prompt as number[];
      const [p1, p2] = goldP[prompt.length]!;
      const n = prompt.length;
      const at = (j: number, lp: number) => ({ [String(prompt[j])]: { logprob: lp, rank: 1 } });
      return {
        json: {
          choices: [
            {
              prompt_logprobs: prompt.map((_, j) =>
                j === 0 ? null : at(j, j === n - 2 ? ln(p1) : j === n - 1 ? ln(p2) : -2),
              ),
            },
          ],
        },
      };
    });
    const dir = tmp();
    const spec = join(dir, "spec.yaml");
    writeFileSync(
      spec,
      [
        "name: igpo",
        "components:",
        "  - name: igpo",
        "    type: info-gain",
        "    source: http",
        `    baseUrl: ${srv.url}/v1`,
        "    model: policy",
        "    maxRetries: 0",
        "",
      ].join("\n"),
    );
    input = join(dir, "in.jsonl");
    const lines = [
      { ...rollout, id: "good" },
      { ...rollout, id: "bad-ids", gold_ids: [40, -41] },
      { ...rollout, id: "offsets", turn_token_offsets: [2, 7, 6] },
      { ...rollout, id: "two-offsets", turn_token_offsets: [2, 6] },
    ];
    writeFileSync(input, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const res = await cliAsync(["score", input, "--spec", spec, "-o", join(dir, "out.jsonl")]);
    expect(res.code, res.stderr).toBe(0);
    stderr = res.stderr;
    out = readJsonl<Scored>(join(dir, "out.jsonl"));
  });
  afterAll(async () => {
    await srv.close();
  });

  it("beliefs [0.25, 0.5, 0.4], outcome 1 → turn_rewards [0.25, −0.1, 1], score 1.15", () => {
    const igpo = out.find((r) => r.id === "good")!.components.igpo!;
    expect(igpo.turn_rewards![0]).toBeCloseTo(0.25, 14);
    expect(igpo.turn_rewards![1]).toBeCloseTo(-0.1, 14);
    expect(igpo.turn_rewards![2]).toBe(1);
    expect(igpo.score).toBeCloseTo(1.15, 14);
  });

  it("the stub received exactly context_t ++ gold_ids, once each (no request for unscorable rollouts)", () => {
    const prompts = srv.received.map((q) => q.body.prompt as number[]).sort((a, b) => a.length - b.length);
    expect(prompts).toEqual([
      [7, 8, 40, 41],
      [7, 8, 1, 2, 40, 41],
      [7, 8, 1, 2, 3, 4, 40, 41],
    ]);
  });

  it("a malformed gold_ids names file:line:field[index]; bad offsets are unscorable length_mismatch", () => {
    expect(stderr).toContain(`${input}:2 gold_ids[1]: expected a token id, got number`);
    expect(out.map((r) => r.id)).toEqual(["good", "offsets", "two-offsets"]);
    expect(out[1]!.components.igpo).toMatchObject({ score: null, reason: "length_mismatch" });
    expect(out[2]!.components.igpo).toMatchObject({
      score: null,
      reason: "length_mismatch",
      details: { lengths: { turn_token_offsets: 2, assistant_turns: 3 } },
    });
  });
});
