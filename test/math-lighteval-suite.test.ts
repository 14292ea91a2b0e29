import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { verifyMath } from "../src/verifiers/math/index.js";
import { choiceVerifier } from "../src/verifiers/text/choice.js";
import { readJsonl } from "./helpers.js";

// lighteval's extractive-match test cases (test/fixtures/lighteval-extractive-cases.jsonl, built by
// scripts/lighteval-cases.py), split by test function into a development part (tuned on) and a held-out evaluation
// part (measured, never inspected case by case). Numbers in docs/math.md §7.

interface Case {
  gold: string;
  pred: string;
  expected: boolean;
  source: string;
  line: number;
  split: "dev" | "eval";
  le_options?: { match_types?: string[]; language?: string; precision?: number };
  in_math_verify?: boolean;
  rewardkit_differs?: string;
  rewardkit_miss?: string;
}

const cases = readJsonl<Case>(fileURLToPath(new URL("./fixtures/lighteval-extractive-cases.jsonl", import.meta.url)));
/** lighteval's LaTeX-only extraction (`match_types: ["latex"]`) is rewardkit's `style: latex`, as for Math-Verify. */
const optionsOf = (c: Case) =>
  c.le_options?.match_types?.length === 1 && c.le_options.match_types[0] === "latex" ? { style: "latex" as const } : {};
/** The cases of lighteval's letter extraction (`NativeLetters`): a user would score these with `type: choice` too. */
const isLetters = (c: Case) => c.le_options?.match_types?.[0] === "NativeLetters";
const choice = choiceVerifier.create(choiceVerifier.options.parse({}));
const choiceScore = (completion: string, reference: string) =>
  (choice({ completion, reference, rollout: { id: "r", completion, reference } } as never) as { score: number | null })
    .score;

interface Tally {
  n: number;
  agree: number;
  unseen: number;
  unseenAgree: number;
  fp: number;
}

describe("lighteval's extractive-match cases (test/fixtures/lighteval-extractive-cases.jsonl)", () => {
  it("type: math agrees on 117/121 development and 105/111 held-out cases; every development miss is documented", async () => {
    const t: Record<"dev" | "eval", Tally> = {
      dev: { n: 0, agree: 0, unseen: 0, unseenAgree: 0, fp: 0 },
      eval: { n: 0, agree: 0, unseen: 0, unseenAgree: 0, fp: 0 },
    };
    const wrong: string[] = [];
    const fixedMisses: string[] = [];
    for (const c of cases) {
      const got = (await verifyMath(c.pred, c.gold, optionsOf(c))).score === 1;
      const p = t[c.split];
      p.n++;
      if (got === c.expected) p.agree++;
      if (got && !c.expected) p.fp++;
      if (!c.in_math_verify) {
        p.unseen++;
        if (got === c.expected) p.unseenAgree++;
      }
      if (c.split === "eval" || c.rewardkit_differs !== undefined) continue; // the held-out part is only counted
      if (c.rewardkit_miss !== undefined) {
        if (got === c.expected) fixedMisses.push(`${c.line}`);
        expect(got && !c.expected, `line ${c.line}`).toBe(false); // a known gap is never a false positive
        continue;
      }
      if (got !== c.expected) wrong.push(`line ${c.line}: gold ${c.gold.slice(0, 60)} | pred ${c.pred.slice(-80)}`);
    }
    expect(cases.length).toBe(232);
    expect(wrong, "development disagreements outside rewardkit_differs / rewardkit_miss").toEqual([]);
    expect(fixedMisses, "a listed gap now agrees: drop its rewardkit_miss").toEqual([]);
    expect(t.dev).toEqual({ n: 121, agree: 117, unseen: 27, unseenAgree: 25, fp: 1 });
    expect(t.eval).toEqual({ n: 111, agree: 105, unseen: 23, unseenAgree: 22, fp: 0 });
  });

  it("type: choice agrees on all 15 letter cases (development)", () => {
    const letters = cases.filter(isLetters);
    const bad = letters
      .filter((c) => (choiceScore(c.pred, c.gold) === 1) !== c.expected)
      .map((c) => `line ${c.line}: ${c.gold} | ${c.pred}`);
    expect(letters.length).toBe(15);
    expect(letters.every((c) => c.split === "dev")).toBe(true);
    expect(bad).toEqual([]);
  });

  it("the documented differences: 3 policy differences and 1 known gap, all in the development part", () => {
    const differs = cases.filter((c) => c.rewardkit_differs !== undefined);
    const misses = cases.filter((c) => c.rewardkit_miss !== undefined);
    expect([differs.length, misses.length]).toEqual([3, 1]);
    expect([...differs, ...misses].every((c) => c.split === "dev")).toBe(true);
  });

  it("the split is by test function: the letter blocks and math blocks on the development side, math on both", () => {
    const parts = new Map<string, Set<string>>();
    for (const c of cases) parts.set(c.source, (parts.get(c.source) ?? new Set()).add(c.split));
    expect([...parts.values()].every((s) => s.size === 1)).toBe(true);
    const by = (split: string) => [...parts].filter(([, s]) => s.has(split)).map(([k]) => k.split(":")[1]);
    expect(by("dev")).toContain("test_extraction_abc");
    expect(by("dev")).toContain("test_multilingual_extraction_abc");
    expect(by("dev").length).toBe(7);
    expect(by("eval").length).toBe(8);
    const listed = (
      JSON.parse(readFileSync(fileURLToPath(new URL("./fixtures/math-split.json", import.meta.url)), "utf8")) as {
        corpora: Record<string, { dev: string[]; eval: string[] }>;
      }
    ).corpora["lighteval-extractive"];
    expect([listed?.dev, listed?.eval]).toEqual([by("dev"), by("eval")]);
  });
});
