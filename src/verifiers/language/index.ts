import { z } from "zod";
import { ok, unscorable } from "../../core/types.js";
import type { VerifierDefinition } from "../types.js";
import { DETECTOR_NAMES, detector } from "./detectors.js";

const options = z.strictObject({
  /** The language the text should be in: ISO 639-1 (`en`, `zh`, `ja` …). */
  target: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]{2})?$/, "an ISO 639-1 code such as en or zh")
    .transform((s) => s.slice(0, 2)),
  /** `completion` (default): the whole completion. `reasoning`: its reasoning part, up to the last `reasoningEnd` (DeepSeek-R1). */
  part: z.enum(["completion", "reasoning"]).default("completion"),
  /** End of the reasoning (default `</think>`); a leading `reasoningStart` is dropped. Absent marker: the whole completion is the reasoning. */
  reasoningEnd: z.string().min(1).default("</think>"),
  reasoningStart: z.string().min(1).default("<think>"),
  /** Language identifier for runs of shared scripts (Latin, Cyrillic, Arabic, Devanagari …): `eld` (default) or `langdetect`. */
  detector: z.enum(DETECTOR_NAMES).default("eld"),
  /**
   * Leave out fenced code, inline code and `$…$` / `\(…\)` / `\[…\]` math spans before counting (default false),
   * but only spans with no non-ASCII letter, so text in another script cannot be hidden in them. Still, with a
   * non-English target a policy could move English into code spans: pair it with a format check. Tags (`<think>`)
   * are always left out (markup, not words).
   */
  skipCode: z.boolean().default(false),
  /** A run of fewer words than this takes the language of all the text in its script (default 3): short runs are too short to identify. */
  minRunWords: z.number().int().positive().default(3),
});
export type LanguageOptions = z.infer<typeof options>;

/** Scripts that name one language, so a word in them needs no detector. */
const SCRIPT_LANGUAGE: ReadonlyArray<[RegExp, string]> = [
  [/\p{Script=Hangul}/u, "ko"],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, "ja"],
  [/\p{Script=Thai}/u, "th"],
  [/\p{Script=Hebrew}/u, "he"],
  [/\p{Script=Greek}/u, "el"],
  [/\p{Script=Georgian}/u, "ka"],
  [/\p{Script=Armenian}/u, "hy"],
  [/\p{Script=Bengali}/u, "bn"],
  [/\p{Script=Gurmukhi}/u, "pa"],
  [/\p{Script=Gujarati}/u, "gu"],
  [/\p{Script=Oriya}/u, "or"],
  [/\p{Script=Tamil}/u, "ta"],
  [/\p{Script=Telugu}/u, "te"],
  [/\p{Script=Kannada}/u, "kn"],
  [/\p{Script=Malayalam}/u, "ml"],
  [/\p{Script=Sinhala}/u, "si"],
  [/\p{Script=Khmer}/u, "km"],
  [/\p{Script=Lao}/u, "lo"],
  [/\p{Script=Myanmar}/u, "my"],
  [/\p{Script=Ethiopic}/u, "am"],
  [/\p{Script=Tibetan}/u, "bo"],
];
/** Scripts several languages share: a run of them is identified by the detector. */
const SHARED_SCRIPTS: ReadonlyArray<[RegExp, string]> = [
  [/\p{Script=Latin}/u, "Latin"],
  [/\p{Script=Cyrillic}/u, "Cyrillic"],
  [/\p{Script=Arabic}/u, "Arabic"],
  [/\p{Script=Devanagari}/u, "Devanagari"],
];
const HAN = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const LETTER = /\p{L}/u;
const TAG = /<\/?[A-Za-z][\w-]*>/g;
// every opener closes at the latest at the end of the text, so each span is found in one linear pass
const CODE =
  /```[\s\S]*?(?:```|$)|`[^`\n]*`|\$\$[\s\S]*?(?:\$\$|$)|\$[^$\n]*\$|\\\([\s\S]*?(?:\\\)|$)|\\\[[\s\S]*?(?:\\\]|$)/g;
const NON_ASCII_LETTER = /[^\P{L}A-Za-z]/u;
const segmenter = new Intl.Segmenter(undefined, { granularity: "word" });

/** The part of the completion a `language` component reads. */
export function languagePart(
  completion: string,
  o: Pick<LanguageOptions, "part" | "reasoningEnd" | "reasoningStart">,
): { text: string; reasoningFound?: boolean } {
  if (o.part === "completion") return { text: completion };
  const end = completion.lastIndexOf(o.reasoningEnd);
  let text = end < 0 ? completion : completion.slice(0, end);
  const start = text.indexOf(o.reasoningStart);
  if (start >= 0 && text.slice(0, start).trim() === "") text = text.slice(start + o.reasoningStart.length);
  return { text, reasoningFound: end >= 0 };
}

/** Words of a text (letters only: numbers and symbols are in no language), with the script key of each. */
function words(text: string): Array<{ word: string; script: string }> {
  const out: Array<{ word: string; script: string }> = [];
  const kana = KANA.test(text); // Han in a text with kana is Japanese
  for (const s of segmenter.segment(text)) {
    if (!s.isWordLike || !LETTER.test(s.segment)) continue;
    const w = s.segment;
    let script = "";
    if (HAN.test(w)) script = kana ? "=ja" : "=zh";
    else {
      const fixed = SCRIPT_LANGUAGE.find(([re]) => re.test(w));
      if (fixed) script = `=${fixed[1]}`;
      else script = SHARED_SCRIPTS.find(([re]) => re.test(w))?.[1] ?? "Other";
    }
    out.push({ word: w, script });
  }
  return out;
}

/**
 * Share of the words of `text` that are in `target` (DeepSeek-R1's language-consistency reward: "the proportion of
 * target language words in the CoT", DeepSeek-AI 2025, arXiv 2501.12948 §2.3.4). Words come from `Intl.Segmenter`
 * (ICU; Chinese and Japanese by dictionary); a word in a script of one language (Han, kana, Hangul, Thai …) is in
 * that language; consecutive words of a shared script (Latin, Cyrillic, Arabic, Devanagari) form a run that the
 * detector identifies (a run shorter than `minRunWords` takes the language of all the text in that script).
 * @returns the share in [0, 1] with per-language word counts, or `null` when the text has no words.
 */
export function languageShare(
  text: string,
  target: string,
  detect: (t: string) => string | null,
  minRunWords = 3,
): { share: number; words: number; languages: Record<string, number> } | null {
  const ws = words(text);
  if (ws.length === 0) return null;
  const runs: Array<{ script: string; words: string[] }> = [];
  for (const w of ws) {
    const last = runs[runs.length - 1];
    if (last && last.script === w.script) last.words.push(w.word);
    else runs.push({ script: w.script, words: [w.word] });
  }
  const byScript = new Map<string, string | null>();
  const scriptLanguage = (script: string): string | null => {
    if (!byScript.has(script))
      byScript.set(
        script,
        detect(
          runs
            .filter((r) => r.script === script)
            .map((r) => r.words.join(" "))
            .join(" "),
        ),
      );
    return byScript.get(script)!;
  };
  const languages: Record<string, number> = {};
  for (const r of runs) {
    let lang: string | null;
    if (r.script.startsWith("=")) lang = r.script.slice(1);
    else if (r.script === "Other") lang = null;
    else lang = (r.words.length >= minRunWords ? detect(r.words.join(" ")) : null) ?? scriptLanguage(r.script);
    const key = lang ?? "unknown";
    languages[key] = (languages[key] ?? 0) + r.words.length;
  }
  return { share: (languages[target] ?? 0) / ws.length, words: ws.length, languages };
}

/**
 * `language`: the share of the completion's (or its reasoning's) words that are in the `target` language, in [0, 1]
 * (DeepSeek-R1's language-consistency reward). `details.languages` counts words per language. A text with no words
 * (empty, digits, symbols, only code) is unscorable (`no_language`).
 * Example: target `en`, "The answer is 42." → 1; "答案是 42，因为 six times seven." → zh 3 words of 6 → 0.5.
 */
export const languageVerifier: VerifierDefinition<LanguageOptions> = {
  type: "language",
  summary:
    "share of the words in the target language (DeepSeek-R1 language consistency), over the completion or its reasoning",
  options,
  isolation: "inline", // a segmenter pass and a detector call per run of shared-script words
  defaultTimeoutMs: 10_000, // the first call of a process loads the detector (about a second for eld)
  create(o) {
    return async ({ completion }) => {
      const detect = await detector(o.detector);
      const { text, reasoningFound } = languagePart(completion, o);
      const untagged = text.replace(TAG, " ");
      const stripped = o.skipCode
        ? untagged.replace(CODE, (span) => (NON_ASCII_LETTER.test(span) ? span : " "))
        : untagged;
      const r = languageShare(stripped, o.target, detect, o.minRunWords);
      const extra = reasoningFound === undefined ? {} : { reasoningFound };
      if (!r) return unscorable("no_language", extra);
      return ok(r.share, r.share === 0 ? "no_match" : undefined, { words: r.words, languages: r.languages, ...extra });
    };
  },
};
