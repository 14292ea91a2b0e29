import { describe, expect, it } from "vitest";
import { ok, unscorable } from "../core/types.js";
import { parseSpec } from "../spec/load.js";
import { computeReward } from "./reward.js";

const spec = (extra = "") =>
  parseSpec(
    `components:
  - {name: acc, type: exact, weight: 1}
  - {name: style, type: contains, weight: 0.5, value: "ok", gate: acc}
  - {name: brevity, type: contains, weight: 0.25, value: "x", gate: style}
  - {name: fmt, type: think-format, weight: 0}
${extra}`,
    "t.yaml",
  );

describe("computeReward", () => {
  it("weighted sum with gate chains", () => {
    const s = spec();
    expect(computeReward(s, [ok(1), ok(1), ok(1), ok(0)])).toBe(1.75);
    // acc fails: style and brevity (chained through style) are closed
    expect(computeReward(s, [ok(0), ok(1), ok(1), ok(1)])).toBe(0);
    // style fails its pass threshold (1): brevity closed, style still adds 0.5·0.5
    expect(computeReward(s, [ok(1), ok(0.5), ok(1), ok(1)])).toBe(1.25);
  });

  it("onUnscorable zero counts 0; exclude nulls the reward; weight-0 and gated-off components never null it", () => {
    expect(computeReward(spec(), [unscorable("no_answer"), ok(1), ok(1), ok(1)])).toBe(0);
    const ex = spec("onUnscorable: exclude");
    expect(computeReward(ex, [unscorable("no_answer"), ok(1), ok(1), ok(1)])).toBeNull();
    expect(computeReward(ex, [ok(1), ok(1), ok(1), unscorable("timeout")])).toBe(1.75);
    expect(computeReward(ex, [ok(0), unscorable("timeout"), ok(1), ok(1)])).toBe(0);
  });
});
