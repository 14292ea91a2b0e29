import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { detect as langdetect } from "../language/langdetect.js";
import { INSTRUCTIONS, instructionIds, looseVariants } from "./instructions.js";
import type { DetectLanguage } from "./instructions.js";
import { strip } from "./python.js";

const options = z.strictObject({
  /**
   * `strict` (default): the response as given. `loose`: an instruction counts as followed when any of Google's
   * eight variants follows it (the response, without its first line, without its last line, without both, each
   * also with every `*` removed), as `evaluation_lib.test_instruction_following_loose`.
   */
  mode: z.enum(["strict", "loose"]).default("strict"),
  /** `all` (default): 1 when every instruction is followed, else 0 (IFEval's prompt level). `share`: the fraction followed (instruction level). */
  score: z.enum(["all", "share"]).default("all"),
  /**
   * `keywords:letter_frequency` with a `letter` outside a–z (IFEval has `#` and `!`). `any`: count that character,
   * as Google's current checker does. `ascii`: as the 2023–2025 checker that produced IFEval's published verdicts,
   * which does not count such a letter but a random one; rewardkit cannot decide that instruction, so it is `null`
   * in `details` and the component is unscorable unless another instruction failed. `auto` (default): `ascii` in
   * `strict` mode (the published checker's letter: IFEval's strict verdicts reproduced exactly) and `any` in `loose`
   * mode (the instruction's intent: the loose verdicts reproduced exactly). No single deterministic rule gives both
   * published columns (docs/length-ifeval.md).
   */
  letters: z.enum(["auto", "any", "ascii"]).default("auto"),
});
export type IfevalOptions = z.infer<typeof options>;

/** One instruction's verdict in `details.instructions`. */
export interface InstructionVerdict {
  id: string;
  /** Followed; `null` when it cannot be decided (see the `letters` option). */
  followed: boolean | null;
  /** Loose mode: index of the first variant that follows it (0 = the response itself). */
  variant?: number;
}

type Parsed = { ids: string[]; kwargs: Record<string, unknown>[] } | { error: string };

/** Validates `{instruction_id_list, kwargs}`; null-valued kwargs are dropped (Hugging Face's IFEval copy pads with nulls). */
export function parseIfevalReference(reference: unknown): Parsed {
  if (reference === null || typeof reference !== "object" || Array.isArray(reference))
    return { error: "reference must be an object {instruction_id_list, kwargs}" };
  const r = reference as Record<string, unknown>;
  const ids = r.instruction_id_list;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((x) => typeof x === "string"))
    return { error: "instruction_id_list: expected a non-empty array of instruction ids" };
  const kw: unknown = r.kwargs ?? ids.map(() => ({}));
  if (!Array.isArray(kw) || kw.length !== ids.length)
    return { error: `kwargs: expected an array of ${ids.length} objects, one per instruction` };
  const kwargs: Record<string, unknown>[] = [];
  for (let i = 0; i < ids.length; i++) {
    const def = INSTRUCTIONS.get(ids[i] as string);
    if (!def)
      return {
        error: `instruction_id_list[${i}]: unknown instruction "${ids[i] as string}"; known: ${instructionIds().join(", ")}`,
      };
    const k: unknown = kw[i];
    if (k === null || typeof k !== "object" || Array.isArray(k)) return { error: `kwargs[${i}]: expected an object` };
    const clean = Object.fromEntries(Object.entries(k as Record<string, unknown>).filter(([, v]) => v !== null));
    const p = def.kwargs.safeParse(clean);
    if (!p.success) {
      const issue = p.error.issues[0]!;
      const where = issue.code === "unrecognized_keys" ? issue.keys.join(", ") : issue.path.join(".");
      return { error: `kwargs[${i}]${where ? "." + where : ""} (${ids[i] as string}): ${issue.message}` };
    }
    kwargs.push(p.data);
  }
  return { ids: ids, kwargs };
}

/**
 * Verdicts for every instruction on one response. Pure: a function of the response, the instructions and options.
 * An empty (whitespace-only) response follows nothing, as in Google's checker.
 */
export function checkInstructions(
  response: string,
  ids: readonly string[],
  kwargs: readonly Record<string, unknown>[],
  o: IfevalOptions,
  detect: DetectLanguage = langdetect,
): InstructionVerdict[] {
  const variants = o.mode === "loose" ? looseVariants(response) : [response];
  const asciiLetters = o.letters === "ascii" || (o.letters === "auto" && o.mode === "strict");
  return ids.map((id, i) => {
    const def = INSTRUCTIONS.get(id)!;
    const k = kwargs[i]!;
    if (id === "keywords:letter_frequency" && asciiLetters && !/^[a-z]$/.test(String(k.letter).toLowerCase()))
      return { id, followed: null };
    const at = variants.findIndex((v) => strip(v) !== "" && def.check(v, k as never, detect));
    return at < 0
      ? { id, followed: false }
      : o.mode === "loose"
        ? { id, followed: true, variant: at }
        : { id, followed: true };
  });
}

/** Aggregates instruction verdicts into the component result (`all` or `share`). */
export function ifevalResult(verdicts: readonly InstructionVerdict[], score: IfevalOptions["score"]): ComponentResult {
  const followed = verdicts.filter((v) => v.followed === true).length;
  const failed = verdicts.filter((v) => v.followed === false).length;
  const decided = followed + failed;
  const details = { followed, total: verdicts.length, instructions: verdicts };
  if (score === "all") {
    if (failed > 0) return ok(0, "not_followed", details);
    return decided < verdicts.length ? unscorable("unsupported_instruction", details) : ok(1, undefined, details);
  }
  if (decided === 0) return unscorable("unsupported_instruction", details);
  return ok(followed / decided, failed > 0 ? "not_followed" : undefined, details);
}

/**
 * `ifeval`: IFEval's verifiable instructions (Zhou et al. 2023, arXiv 2311.07911), checked exactly as Google's reference
 * checker (`google-research/instruction_following_eval`) in its strict and loose modes. Reference
 * `{instruction_id_list: ["punctuation:no_comma", …], kwargs: [{}, …]}` as in IFEval's `input_data.jsonl`.
 * Score: 1 when every instruction is followed (`score: all`) or the share followed (`share`); per-instruction verdicts
 * in `details.instructions`.
 *
 * Example: reference `{instruction_id_list: ["punctuation:no_comma", "change_case:english_lowercase"], kwargs: [{}, {}]}`,
 * completion `"hello there."` → 1; `"Hello, there."` → 0 (`details.followed` 0 of 2), 0 with `share` as well.
 *
 * On IFEval's 540 GPT-4 responses with Google's verdicts it agrees on 830/832 instruction verdicts (strict) and 832/832
 * (loose), prompt level 417 vs Google's 415 (strict) and 431 = 431 (loose). The two strict differences are the
 * letter-frequency instructions on `#` and `!`, which Google's checker scored with a random letter: no deterministic
 * checker can match both modes there (`docs/length-ifeval.md`).
 */
export const ifevalVerifier: VerifierDefinition<IfevalOptions> = {
  type: "ifeval",
  summary: "IFEval verifiable instructions (Google's checker, strict or loose): all followed, or the share followed",
  options,
  isolation: "worker", // regexes over the whole completion and sentence tokenization: under a hard deadline
  defaultTimeoutMs: 10_000,
  create(o) {
    return ({ completion, reference }) => {
      if (reference === undefined || reference === null) return unscorable("no_reference");
      const parsed = parseIfevalReference(reference);
      if ("error" in parsed) return unscorable("invalid_reference", { error: parsed.error });
      return ifevalResult(checkInstructions(completion, parsed.ids, parsed.kwargs, o), o.score);
    };
  },
};
