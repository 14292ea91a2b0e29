import { z } from "zod";
import { B, S, W, escapeRegex, findAll, isLower, isUpper, lstrip, pyLen, rstrip, split, strip } from "./python.js";
import { sentTokenize } from "./punkt.js";
import { wordTokenize } from "./word-tokenize.js";

/**
 * The 25 instruction types of IFEval (Zhou et al. 2023, "Instruction-Following Evaluation for Large Language
 * Models", arXiv 2311.07911), each checked as Google's reference checker does (`google-research/google-research`
 * `instruction_following_eval/instructions.py`, `instructions_registry.py`). Every check is a pure function of the
 * response and the instruction's kwargs. Where Google's checker draws a random value for a missing kwarg, rewardkit
 * requires the kwarg instead (a reward must be deterministic).
 *
 * Deviations, all unreachable on the IFEval data: kwargs that Google feeds to `re` as patterns (keywords, forbidden
 * words, section splitter, custom postscript marker) are matched literally when they contain regex metacharacters;
 * JSON is parsed by `JSON.parse`, which rejects Python's `NaN`/`Infinity` extensions.
 */

/** Language identification: ISO 639-1 code, or `null` when the text has no features (langdetect raises). */
export type DetectLanguage = (text: string) => string | null;

/** One instruction type: its kwargs schema and its check. */
export interface InstructionDef<K = Record<string, unknown>> {
  id: string;
  kwargs: z.ZodType<K>;
  check(response: string, kwargs: K, detect: DetectLanguage): boolean;
}

const relation = z.enum(["less than", "at least"]);
const count = z.number().int().nonnegative();
const compare = (n: number, rel: "less than" | "at least", threshold: number): boolean =>
  rel === "less than" ? n < threshold : n >= threshold;

/** A kwarg Google uses as a regex: as is when it has no metacharacter (then both engines agree), else literal. */
function asPattern(s: string): string {
  return /[\\^$.*+?()[\]{}|]/.test(s) ? escapeRegex(s) : s;
}

const ML_START = "(?<![^\\n])"; // `^` under re.MULTILINE
const ML_END = "(?![^\\n])"; // `$` under re.MULTILINE
const DOT = "[^\\n]";

/** `instructions_util.count_words`: tokens of `nltk.RegexpTokenizer(r"\w+")`. */
export function countWords(text: string): number {
  return findAll(text, new RegExp(`${W}+`, "gu")).length;
}

const BULLET_STAR = new RegExp(`${ML_START}${S}*\\*[^*]${DOT}*${ML_END}`, "gu");
const BULLET_DASH = new RegExp(`${ML_START}${S}*-${DOT}*${ML_END}`, "gu");
const HIGHLIGHT = /\*[^\n*]*\*/gu;
const DOUBLE_HIGHLIGHT = /\*\*[^\n*]*\*\*/gu;
const PLACEHOLDER = new RegExp(`\\[${DOT}*?\\]`, "gu");
const TITLE = /<<[^\n]+>>/gu;
const PARAGRAPH_DIVIDER = new RegExp(`${S}?\\*\\*\\*${S}?`, "gu");
const CONSTRAINED = ["My answer is yes.", "My answer is no.", "My answer is maybe."];

function def<K>(id: string, kwargs: z.ZodType<K>, check: InstructionDef<K>["check"]): InstructionDef<K> {
  return { id, kwargs, check };
}
const none = z.strictObject({});

/** Registry: instruction id → definition (ids as in IFEval's `instruction_id_list`). */
export const INSTRUCTIONS: ReadonlyMap<string, InstructionDef<never>> = new Map(
  (
    [
      def("keywords:existence", z.strictObject({ keywords: z.array(z.string().min(1)).min(1) }), (v, k) =>
        [...k.keywords].sort().every((w) => new RegExp(asPattern(w), "iu").test(v)),
      ),
      def("keywords:frequency", z.strictObject({ keyword: z.string().min(1), frequency: count, relation }), (v, k) =>
        compare(findAll(v, new RegExp(asPattern(strip(k.keyword)), "giu")).length, k.relation, k.frequency),
      ),
      def("keywords:forbidden_words", z.strictObject({ forbidden_words: z.array(z.string().min(1)).min(1) }), (v, k) =>
        [...new Set(k.forbidden_words)].every((w) => !new RegExp(`${B}${asPattern(w)}${B}`, "iu").test(v)),
      ),
      def(
        "keywords:letter_frequency",
        z.strictObject({
          letter: z.string().refine((s) => pyLen(s) === 1, "a single character"),
          let_frequency: count,
          let_relation: relation,
        }),
        (v, k) => {
          const letter = strip(k.letter).toLowerCase();
          let n = 0;
          for (const ch of v.toLowerCase()) if (ch === letter) n++;
          return compare(n, k.let_relation, k.let_frequency);
        },
      ),
      def("language:response_language", z.strictObject({ language: z.string().min(2) }), (v, k, detect) => {
        const got = detect(v);
        return got === null || got === k.language; // langdetect found no features: Google counts it as followed
      }),
      def("length_constraints:number_sentences", z.strictObject({ num_sentences: count, relation }), (v, k) =>
        compare(sentTokenize(v).length, k.relation, k.num_sentences),
      ),
      def("length_constraints:number_paragraphs", z.strictObject({ num_paragraphs: count }), (v, k) => {
        const paragraphs = split(v, PARAGRAPH_DIVIDER);
        let n = paragraphs.length;
        for (let i = 0; i < paragraphs.length; i++) {
          if (strip(paragraphs[i]!) !== "") continue;
          if (i === 0 || i === paragraphs.length - 1) n--;
          else return false;
        }
        return n === k.num_paragraphs;
      }),
      def("length_constraints:number_words", z.strictObject({ num_words: count, relation }), (v, k) =>
        compare(countWords(v), k.relation, k.num_words),
      ),
      def(
        "length_constraints:nth_paragraph_first_word",
        z
          .strictObject({
            num_paragraphs: count,
            nth_paragraph: z.number().int().positive(),
            first_word: z.string().min(1),
          })
          .refine((k) => k.nth_paragraph <= k.num_paragraphs, {
            message: "nth_paragraph must be <= num_paragraphs",
            path: ["nth_paragraph"],
          }),
        (v, k) => {
          const paragraphs = v.split("\n\n");
          let n = paragraphs.length;
          for (const p of paragraphs) if (strip(p) === "") n--;
          if (k.nth_paragraph > n) return false;
          const paragraph = strip(paragraphs[k.nth_paragraph - 1]!);
          if (paragraph === "") return false;
          let word = strip(paragraph.split(new RegExp(`${S}+`, "u"))[0]!);
          word = lstrip(lstrip(word, "'"), '"');
          let first = "";
          for (const ch of word) {
            if (".,?!'\"".includes(ch)) break;
            first += ch.toLowerCase();
          }
          return n === k.num_paragraphs && first === k.first_word.toLowerCase();
        },
      ),
      def(
        "detectable_content:number_placeholders",
        z.strictObject({ num_placeholders: count }),
        (v, k) => findAll(v, PLACEHOLDER).length >= k.num_placeholders,
      ),
      def("detectable_content:postscript", z.strictObject({ postscript_marker: z.string().min(1) }), (v, k) => {
        const marker = strip(k.postscript_marker);
        const body =
          marker === "P.P.S"
            ? `p\\.${S}?p\\.${S}?s`
            : marker === "P.S."
              ? `p\\.${S}?s\\.`
              : asPattern(marker.toLowerCase());
        return new RegExp(`${S}*${body}${DOT}*${ML_END}`, "u").test(v.toLowerCase());
      }),
      def(
        "detectable_format:number_bullet_lists",
        z.strictObject({ num_bullets: count }),
        (v, k) => findAll(v, BULLET_STAR).length + findAll(v, BULLET_DASH).length === k.num_bullets,
      ),
      def("detectable_format:constrained_response", none, (v) => {
        const s = strip(v);
        return CONSTRAINED.some((o) => s.includes(o));
      }),
      def("detectable_format:number_highlighted_sections", z.strictObject({ num_highlights: count }), (v, k) => {
        let n = 0;
        for (const h of findAll(v, HIGHLIGHT)) if (strip(strip(h, "*")) !== "") n++;
        for (const h of findAll(v, DOUBLE_HIGHLIGHT)) if (strip(h.slice(2, -2)) !== "") n++;
        return n >= k.num_highlights;
      }),
      def(
        "detectable_format:multiple_sections",
        z.strictObject({ section_spliter: z.string().min(1), num_sections: count }),
        (v, k) => {
          const re = new RegExp(`${S}?${asPattern(strip(k.section_spliter))}${S}?\\p{Nd}+${S}?`, "gu");
          return split(v, re).length - 1 >= k.num_sections;
        },
      ),
      def("detectable_format:json_format", none, (v) => {
        let s = strip(v);
        for (const p of ["```json", "```Json", "```JSON", "```"]) {
          if (s.startsWith(p)) s = s.slice(p.length); // str.removeprefix, applied in turn
        }
        if (s.endsWith("```")) s = s.slice(0, -3);
        try {
          JSON.parse(strip(s));
          return true;
        } catch {
          return false;
        }
      }),
      def("detectable_format:title", none, (v) =>
        findAll(v, TITLE).some((t) => strip(rstrip(lstrip(t, "<"), ">")) !== ""),
      ),
      def("combination:two_responses", none, (v) => {
        const parts = v.split("******");
        const valid: string[] = [];
        for (let i = 0; i < parts.length; i++) {
          if (strip(parts[i]!) === "") {
            if (i !== 0 && i !== parts.length - 1) return false;
          } else valid.push(parts[i]!);
        }
        return valid.length === 2 && strip(valid[0]!) !== strip(valid[1]!);
      }),
      def("combination:repeat_prompt", z.strictObject({ prompt_to_repeat: z.string().min(1) }), (v, k) =>
        strip(v).toLowerCase().startsWith(strip(k.prompt_to_repeat).toLowerCase()),
      ),
      def("startend:end_checker", z.strictObject({ end_phrase: z.string().min(1) }), (v, k) =>
        strip(strip(v), '"').toLowerCase().endsWith(strip(k.end_phrase).toLowerCase()),
      ),
      def(
        "change_case:capital_word_frequency",
        z.strictObject({ capital_frequency: count, capital_relation: relation }),
        (v, k) => compare(wordTokenize(v).filter(isUpper).length, k.capital_relation, k.capital_frequency),
      ),
      def("change_case:english_capital", none, (v, _k, detect) => {
        if (!isUpper(v)) return false;
        const lang = detect(v);
        return lang === null || lang === "en";
      }),
      def("change_case:english_lowercase", none, (v, _k, detect) => {
        if (!isLower(v)) return false;
        const lang = detect(v);
        return lang === null || lang === "en";
      }),
      def("punctuation:no_comma", none, (v) => !v.includes(",")),
      def("startend:quotation", none, (v) => {
        const s = strip(v);
        return pyLen(s) > 1 && s.startsWith('"') && s.endsWith('"');
      }),
    ] as unknown as InstructionDef<never>[]
  ).map((d) => [d.id, d]),
);

/** Instruction ids rewardkit checks (IFEval's 25). */
export function instructionIds(): string[] {
  return [...INSTRUCTIONS.keys()].sort();
}

/** The response variants loose mode tries (Google's `test_instruction_following_loose`), strict first. */
export function looseVariants(response: string): string[] {
  const lines = response.split("\n");
  const removeFirst = strip(lines.slice(1).join("\n"));
  const removeLast = strip(lines.slice(0, -1).join("\n"));
  const removeBoth = strip(lines.slice(1, -1).join("\n"));
  const noStars = (s: string): string => s.replaceAll("*", "");
  return [
    response,
    noStars(response),
    removeFirst,
    removeLast,
    removeBoth,
    noStars(removeFirst),
    noStars(removeLast),
    noStars(removeBoth),
  ];
}
