/**
 * "Master keys" (Zhao et al. 2025, "One Token to Fool LLM-as-a-Judge"): responses with no content that LLM judges
 * nonetheless accept at high rates — non-word symbols and reasoning openers in several languages. A completion that
 * is nothing but one of them (or empty) scores 0 (`format_mismatch`, `details.guard: "master_key"`) whatever the
 * judge says; the judge is still asked, and its score kept in `details.judgeScore` (evidence of a fooled judge).
 * Case and surrounding whitespace/punctuation are ignored.
 */
const OPENERS = [
  "thought process",
  "let's solve this problem step by step",
  "let us solve this problem step by step",
  "solution",
  "answer",
  "解",
  "解答",
  "答案",
  "かいせつ",
  "解説",
  "respuesta",
  "solución",
];

/** Why a completion is a master key (undefined when it has content). Example: "Thought process:" → "reasoning opener". */
export function masterKey(completion: string): string | undefined {
  const t = completion.trim();
  if (t === "") return "empty";
  // nothing but symbols and punctuation (no letter, no digit, in any script)
  if (!/[\p{L}\p{N}]/u.test(t)) return "no words";
  const core = t.toLowerCase().replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, "");
  return OPENERS.includes(core) ? "reasoning opener" : undefined;
}
