import { defineRegistry } from "../core/registry.js";
import type { Registry } from "../core/registry.js";
import type { VerifierDefinition } from "./types.js";
import { mathVerifier } from "./math/index.js";
import { thinkFormatVerifier } from "./format/think-format.js";
import { exactVerifier } from "./text/exact.js";
import { containsVerifier } from "./text/contains.js";
import { regexVerifier } from "./text/regex.js";
import { overlongVerifier } from "./length/overlong.js";
import { codeVerifier } from "./code/index.js";
import { likelihoodVerifier } from "./likelihood/index.js";
import { brierVerifier, logScoreVerifier } from "./likelihood/forecast.js";
import { jsonSchemaVerifier } from "./structured/json-schema.js";
import { tagsVerifier } from "./structured/tags.js";
import { jsonMatchVerifier } from "./structured/json-match.js";
import { markdownVerifier } from "./structured/markdown.js";
import { choiceVerifier } from "./text/choice.js";
import { f1Verifier } from "./text/f1.js";
import { levenshteinVerifier } from "./text/levenshtein.js";
import { fuzzyVerifier } from "./text/fuzzy.js";
import { bleuVerifier } from "./text/bleu.js";
import { rougeVerifiers } from "./text/rouge.js";
import { iouVerifier } from "./geometry/iou.js";
import { openaiGraderVerifier } from "./openai/grader.js";
import { toolCallVerifier } from "./tools/tool-call.js";
import { trajectoryVerifier } from "./tools/trajectory.js";
import { createProcessVerifier } from "./process/index.js";
import { arithmeticVerifier } from "./process/arithmetic.js";
import { judgeVerifier } from "./judge/index.js";
import { rewardModelVerifier } from "./reward-model/index.js";
import { fieldVerifier } from "./field/index.js";
import { ifevalVerifier } from "./ifeval/index.js";
import { cosineLengthVerifier } from "./length/cosine.js";
import { repetitionPenaltyVerifier } from "./length/repetition.js";
import { lengthBudgetVerifier } from "./length/budget.js";
import { groupLengthVerifier } from "./length/group-length.js";
import { languageVerifier } from "./language/index.js";
import { distillVerifier } from "./dense/distill.js";
import { implicitPrmVerifier } from "./dense/implicit-prm.js";
import { infoGainVerifier } from "./dense/info-gain.js";

/**
 * The verifier registry: spec `type` → definition. Adding a verifier is one file and one line here.
 * Workers import this same module, so a type registered here is available in every worker.
 */
/** The built-in verifier types (a spec's `plugins:` add more: see `src/plugins/`). */
export const verifiers: Registry<VerifierDefinition> = defineRegistry<VerifierDefinition>(
  "verifier type",
  (v) => v.type,
  [
    mathVerifier,
    thinkFormatVerifier,
    exactVerifier,
    containsVerifier,
    regexVerifier,
    overlongVerifier,
    codeVerifier,
    likelihoodVerifier,
    brierVerifier,
    logScoreVerifier,
    jsonSchemaVerifier,
    tagsVerifier,
    jsonMatchVerifier,
    markdownVerifier,
    choiceVerifier,
    f1Verifier,
    levenshteinVerifier,
    fuzzyVerifier,
    bleuVerifier,
    ...rougeVerifiers,
    iouVerifier,
    openaiGraderVerifier,
    toolCallVerifier,
    trajectoryVerifier,
    createProcessVerifier((type) => getVerifier(type)),
    arithmeticVerifier,
    judgeVerifier,
    rewardModelVerifier,
    fieldVerifier,
    ifevalVerifier,
    cosineLengthVerifier,
    repetitionPenaltyVerifier,
    lengthBudgetVerifier,
    groupLengthVerifier,
    languageVerifier,
    distillVerifier,
    implicitPrmVerifier,
    infoGainVerifier,
  ],
);

/** Looks up a verifier type; `undefined` when unknown. */
export function getVerifier(type: string): VerifierDefinition<unknown> | undefined {
  return verifiers.get(type);
}

/** All registered verifier type names, sorted. */
export function verifierTypes(): string[] {
  return verifiers.names();
}
