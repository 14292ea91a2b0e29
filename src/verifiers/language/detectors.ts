import { detect as langdetect } from "./langdetect.js";

/** A language identifier: ISO 639-1 code of a text, or `null` when it cannot tell. Chinese is `zh`. */
export type Detect = (text: string) => string | null;

/**
 * Language identifiers the `language` verifier can use, by name, loaded on first use (eld's database costs ~70 MB
 * and a second to load: only processes that score a `language` component pay it).
 *
 * - `eld` (default): Efficient Language Detector (npm `eld` 2.1, N. Toledo, Apache-2.0), medium database, 60
 *   languages; built for short texts. It has no Swahili (`sw`) or Nepali (`ne`).
 * - `langdetect`: rewardkit's deterministic port of PyPI `langdetect` 1.0.9 (55 languages, what Google's IFEval
 *   checker uses); poor on short texts (it calls `YES` Welsh). `zh-cn` / `zh-tw` are reported as `zh`.
 *
 * Accuracy by text length on IFEval sentences: `docs/length-ifeval.md` (`npm run bench:language`).
 */
const LOADERS = {
  async eld(): Promise<Detect> {
    const { eld } = await import("eld/medium");
    return (text) => {
      const r = eld.detect(text).language;
      return r === "" ? null : r;
    };
  },
  async langdetect(): Promise<Detect> {
    return (text) => {
      const r = langdetect(text);
      if (r === null || r === "unknown") return null;
      return r.startsWith("zh") ? "zh" : r;
    };
  },
} as const;
export type DetectorName = keyof typeof LOADERS;
export const DETECTOR_NAMES = Object.keys(LOADERS) as [DetectorName, ...DetectorName[]];

const loaded = new Map<DetectorName, Promise<Detect>>();
/** The named detector (loaded once per process). */
export function detector(name: DetectorName): Promise<Detect> {
  let d = loaded.get(name);
  if (!d) loaded.set(name, (d = LOADERS[name]()));
  return d;
}
