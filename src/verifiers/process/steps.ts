import type { Rollout } from "../../core/types.js";

/** How a completion is cut into steps when the rollout carries no `steps` array. */
export type SplitMode = "blank-line" | "newline" | "marker" | "tag";

/** The split options of a `process` component. */
export interface SplitOptions {
  /** `blank-line` (default): paragraphs; `newline`: lines; `marker`: before each `marker` match; `tag`: `<tag>…</tag>` bodies. */
  split: SplitMode;
  /** Regular-expression source of a step marker (`marker` mode), matched with flags `gim`. */
  marker: string;
  /** Tag name of a step (`tag` mode): `<step>…</step>`. */
  tag: string;
  /** Use the rollout's `steps` (array of strings) when it has one (default true). */
  rolloutSteps: boolean;
}

/** The default step marker: `Step 3:`, `## Step 3.`, `step 3)` at the start of a line. */
export const DEFAULT_MARKER = String.raw`^[ \t]*(?:#+[ \t]*)?(?:\*\*)?step[ \t]*\d+[ \t]*[:.)]`;

/** Steps of one rollout and how they were obtained (recorded in the component's `details`). */
export interface StepSplit {
  steps: string[];
  /** `rollout` (the rollout's `steps` field) or the split mode used. */
  source: "rollout" | SplitMode;
  /** Character spans `[start, end)` of each step in the completion (absent for `rollout`). */
  spans?: [number, number][];
}

/** Why the rollout's steps cannot be used. */
export interface StepProblem {
  problem: string;
}

function trimmedSpan(text: string, start: number, end: number): [number, number] | undefined {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return end > start ? [start, end] : undefined;
}

/** Cuts `text` at the given boundaries (sorted char offsets) into trimmed, non-empty spans. */
function cut(text: string, bounds: number[]): [number, number][] {
  const spans: [number, number][] = [];
  const all = [0, ...bounds, text.length];
  for (let i = 0; i + 1 < all.length; i++) {
    const s = trimmedSpan(text, all[i]!, all[i + 1]!);
    if (s) spans.push(s);
  }
  return spans;
}

/**
 * Splits a completion into steps. `blank-line`: at every run of blank lines (ProcessBench's and PRM800K's
 * paragraph steps); `newline`: at every line break; `marker`: before every match of `marker` (text before the
 * first marker is a step of its own when it is not blank); `tag`: the bodies of `<tag>…</tag>` (text outside tags
 * is not a step). Steps are trimmed; blank steps are dropped. Linear in the text for the built-in modes; a user
 * `marker` runs under the component's worker deadline.
 */
export function splitSteps(text: string, o: Pick<SplitOptions, "split" | "marker" | "tag">): StepSplit {
  let spans: [number, number][];
  switch (o.split) {
    case "blank-line":
    case "newline": {
      const re = o.split === "blank-line" ? /\n[ \t\r]*\n\s*/g : /\n/g;
      spans = cut(
        text,
        [...text.matchAll(re)].map((m) => m.index),
      );
      break;
    }
    case "marker": {
      const re = new RegExp(o.marker, "gim");
      const bounds: number[] = [];
      for (const m of text.matchAll(re)) {
        if (m[0].length === 0) continue; // an empty match cuts nothing
        if (m.index > 0) bounds.push(m.index);
      }
      spans = cut(text, bounds);
      break;
    }
    case "tag": {
      const name = o.tag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const re = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}\\s*>`, "gi");
      spans = [];
      for (const m of text.matchAll(re)) {
        const bodyStart = m.index + m[0].indexOf(">") + 1;
        const s = trimmedSpan(text, bodyStart, bodyStart + m[1]!.length);
        if (s) spans.push(s);
      }
      break;
    }
  }
  return { steps: spans.map(([s, e]) => text.slice(s, e)), source: o.split, spans };
}

/**
 * The steps of a rollout: its `steps` field (an array of strings) when present and `rolloutSteps` is on,
 * else the completion split by {@link splitSteps}.
 * @returns the split, or a problem when `steps` is present but not an array of strings.
 */
export function rolloutSteps(rollout: Rollout, completion: string, o: SplitOptions): StepSplit | StepProblem {
  const given = rollout.steps;
  if (o.rolloutSteps && given !== undefined && given !== null) {
    if (!Array.isArray(given) || !given.every((s) => typeof s === "string"))
      return { problem: "`steps` must be an array of strings" };
    return { steps: given, source: "rollout" };
  }
  return splitSteps(completion, o);
}
