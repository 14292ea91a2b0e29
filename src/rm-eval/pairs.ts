import type { Rollout } from "../core/types.js";
import { UserError } from "../core/errors.js";
import { readLines } from "../io/jsonl.js";

/** One preference pair: the same prompt, a chosen and a rejected response. */
export interface PreferencePair {
  id: string;
  prompt: string;
  chosen: string;
  rejected: string;
  reference?: unknown;
}

const TURN = "\n\nAssistant:";

/**
 * Splits an hh-rlhf dialogue ("\n\nHuman: …\n\nAssistant: …", Bai et al. 2022) at its last assistant turn:
 * the prompt is everything before it (ending in "Assistant:"), the response the turn's text (trimmed).
 */
export function splitDialogue(d: string): { prompt: string; response: string } | undefined {
  const at = d.lastIndexOf(TURN);
  if (at < 0) return undefined;
  return { prompt: d.slice(0, at + TURN.length), response: d.slice(at + TURN.length).trim() };
}

/**
 * Reads preference pairs from JSONL (`.gz` by extension): `{"prompt", "chosen", "rejected"}` (strings; `reference`
 * optional), or hh-rlhf's `{"chosen", "rejected"}` full dialogues, split at the last assistant turn (the two share
 * the prompt).
 * @throws {UserError} naming file, line and field for a line that is neither.
 */
export async function readPairs(file: string, limit = Infinity): Promise<PreferencePair[]> {
  const out: PreferencePair[] = [];
  for await (const { line, text } of readLines(file)) {
    if (out.length >= limit) break;
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new UserError(`${file}:${line}: invalid JSON: ${(e as Error).message}`);
    }
    for (const f of ["chosen", "rejected"])
      if (typeof r[f] !== "string") throw new UserError(`${file}:${line} ${f}: expected a string`);
    const id = typeof r.id === "string" || typeof r.id === "number" ? String(r.id) : `pair-${line}`;
    if (typeof r.prompt === "string") {
      out.push({
        id,
        prompt: r.prompt,
        chosen: r.chosen as string,
        rejected: r.rejected as string,
        ...(r.reference !== undefined ? { reference: r.reference } : {}),
      });
      continue;
    }
    const c = splitDialogue(r.chosen as string);
    const j = splitDialogue(r.rejected as string);
    if (!c || !j)
      throw new UserError(
        `${file}:${line} chosen: no "prompt" field and no "\\n\\nAssistant:" turn to split the dialogue at`,
      );
    out.push({ id, prompt: c.prompt, chosen: c.response, rejected: j.response });
  }
  if (out.length === 0) throw new UserError(`${file}: no preference pairs`);
  return out;
}

/** Pairwise accuracy of one scorer: the share of pairs whose chosen response scores higher. */
export interface PairAccuracy {
  /** Pairs compared (both scores numbers). */
  n: number;
  /** chosen > rejected, strictly (RewardBench's rule: a tie is not a win). */
  wins: number;
  ties: number;
  /** wins / n. */
  accuracy: number | null;
  /** (wins + ties / 2) / n: a tie as a coin flip. */
  accuracyTiesHalf: number | null;
}

/** Accuracy of scores over pairs; pairs with a null side are left out (counted by the caller). */
export function pairAccuracy(
  chosen: ReadonlyArray<number | null>,
  rejected: ReadonlyArray<number | null>,
): PairAccuracy {
  let n = 0;
  let wins = 0;
  let ties = 0;
  chosen.forEach((c, i) => {
    const r = rejected[i];
    if (c === null || r === null || r === undefined) return;
    n++;
    if (c > r) wins++;
    else if (c === r) ties++;
  });
  return { n, wins, ties, accuracy: n > 0 ? wins / n : null, accuracyTiesHalf: n > 0 ? (wins + ties / 2) / n : null };
}

/** The rollouts to score for pairs: per pair its chosen then its rejected response, in one group. */
export function pairRollouts(pairs: readonly PreferencePair[]): Rollout[] {
  return pairs.flatMap((p) => [
    {
      id: `${p.id}/chosen`,
      group: p.id,
      prompt: p.prompt,
      completion: p.chosen,
      ...(p.reference !== undefined ? { reference: p.reference } : {}),
    },
    {
      id: `${p.id}/rejected`,
      group: p.id,
      prompt: p.prompt,
      completion: p.rejected,
      ...(p.reference !== undefined ? { reference: p.reference } : {}),
    },
  ]);
}
