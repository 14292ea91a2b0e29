import { eld } from "eld/medium";
import { detect as langdetect } from "./langdetect.js";

/**
 * Language identifiers the `language` verifier can use, by name. Each maps a text to an ISO 639-1 code, or `null`
 * when it cannot tell. Chinese is `zh` for both (langdetect says `zh-cn` / `zh-tw`).
 *
 * - `eld` (default): Efficient Language Detector (npm `eld` 2.1, N. Toledo, Apache-2.0), medium database, 60
 *   languages; built for short texts. It has no Swahili (`sw`) or Nepali (`ne`).
 * - `langdetect`: rewardkit's deterministic port of PyPI `langdetect` 1.0.9 (55 languages, what Google's IFEval
 *   checker uses); poor on short texts (it calls `YES` Welsh).
 *
 * Accuracy by text length on IFEval sentences: `docs/length-ifeval.md` (`npm run bench:language`).
 */
export const DETECTORS = {
  eld(text: string): string | null {
    const r = eld.detect(text).language;
    return r === "" ? null : r;
  },
  langdetect(text: string): string | null {
    const r = langdetect(text);
    if (r === null || r === "unknown") return null;
    return r.startsWith("zh") ? "zh" : r;
  },
} as const;
export type DetectorName = keyof typeof DETECTORS;
export const DETECTOR_NAMES = Object.keys(DETECTORS) as [DetectorName, ...DetectorName[]];
