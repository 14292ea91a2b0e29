import { REASONS, UNSCORABLE_REASONS } from "./reasons.js";
import type { ReasonCode } from "./reasons.js";

/** Renders the reason-code reference (`docs/reasons.md`) from {@link REASONS}. */
export function renderReasons(): string {
  const codes = Object.keys(REASONS) as ReasonCode[];
  const row = (c: ReasonCode): string => `| \`${c}\` | ${REASONS[c]} |`;
  return [
    "# Reason codes",
    "",
    "Generated from `src/core/reasons.ts` by `node scripts/gen-reasons.mjs`; a test keeps it current.",
    "",
    "A component result is `{score, status, reason?, details?}`. An **unscorable** result (`score: null`,",
    '`status: "unscorable"`) always carries one of the first reasons: the verifier could not decide, and the spec\'s',
    "`onUnscorable` says what that costs (`zero` or `exclude`). An **ok** result may carry one of the second kind to",
    "explain a deliberate score (a wrong answer is `ok`, score 0, reason `wrong_answer`).",
    "",
    "## Unscorable (score is null)",
    "",
    "| reason | meaning |",
    "|---|---|",
    ...codes.filter((c) => UNSCORABLE_REASONS.has(c)).map(row),
    "",
    "## With a score",
    "",
    "| reason | meaning |",
    "|---|---|",
    ...codes.filter((c) => !UNSCORABLE_REASONS.has(c)).map(row),
    "",
  ].join("\n");
}
