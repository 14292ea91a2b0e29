import { describe, expect, it } from "vitest";
import type { ComponentResult } from "../../core/types.js";
import { languagePart, languageShare, languageVerifier } from "./index.js";
import { detector } from "./detectors.js";

const run = (completion: string, o: Record<string, unknown>): Promise<ComponentResult> =>
  Promise.resolve(
    languageVerifier.create(languageVerifier.options.parse(o))({
      completion,
      reference: undefined,
      rollout: { id: "r", group: "g", completion },
    }),
  );

const EN = "The committee reviewed the proposal carefully and decided to fund the project for another year.";
const ZH = "委员会仔细审查了这项提案，并决定再为该项目提供一年的资金。";

describe("language (DeepSeek-R1 language consistency)", () => {
  it("is the share of target-language words: all English 1, all Chinese 0, a mix in between", async () => {
    expect(await run(EN, { target: "en" })).toMatchObject({ score: 1, details: { words: 15, languages: { en: 15 } } });
    expect(await run(ZH, { target: "en" })).toMatchObject({ score: 0, reason: "no_match" });
    expect((await run(ZH, { target: "zh" })).score).toBe(1);
    // ICU segments the Chinese into words; the Latin run is identified by the detector
    const mixed = await run("答案是四十二，因为 six times seven is forty two", { target: "zh" });
    expect(mixed.details).toMatchObject({ words: 11, languages: { zh: 5, en: 6 } }); // 答案|是|四|十二|因为
    expect(mixed.score).toBeCloseTo(5 / 11, 12);
  });

  it("part: reasoning reads the text before the last </think> (without <think>)", async () => {
    const c = `<think>${ZH}</think> ${EN}`;
    expect(await run(c, { target: "en", part: "reasoning" })).toMatchObject({
      score: 0,
      details: { reasoningFound: true },
    });
    expect((await run(c, { target: "zh", part: "reasoning" })).score).toBe(1);
    expect((await run(c, { target: "en" })).score).toBeCloseTo(15 / (15 + 17), 12); // 17 Chinese words; the tags are not words
    expect(
      languagePart("no tags here", { part: "reasoning", reasoningEnd: "</think>", reasoningStart: "<think>" }),
    ).toEqual({ text: "no tags here", reasoningFound: false });
  });

  it("skipCode leaves ASCII code and math out (never text in another script); a text without words is unscorable (no_language), not 0", async () => {
    expect(
      (await run(`${EN}\n\`\`\`python\nfor item in range(10): print(item)\n\`\`\``, { target: "en", skipCode: true }))
        .details,
    ).toMatchObject({ words: 15 });
    expect((await run(`${ZH} $x^2 + y^2 = z^2$ \\(a + b\\)`, { target: "zh", skipCode: true })).score).toBe(1);
    expect((await run(`${ZH} $x^2 + y^2 = z^2$`, { target: "zh" })).score).toBeLessThan(1); // by default every word counts
    // hiding Chinese in a code fence does not make an English answer
    expect((await run(`${EN}\n\`\`\`\n${ZH}\n\`\`\``, { target: "en", skipCode: true })).score).toBeCloseTo(
      15 / 32,
      12,
    );
    expect((await run(`${EN} \\( ${ZH}`, { target: "en", skipCode: true })).score).toBeCloseTo(15 / 32, 12); // an unclosed span too
    expect(await run("12345 + 678 = ???", { target: "en" })).toMatchObject({ score: null, reason: "no_language" });
    expect(await run("", { target: "en" })).toMatchObject({ score: null, reason: "no_language" });
  });

  it("short runs take the language of all the text in their script", async () => {
    // "GRPO" alone is too short to identify; with the other Latin words it is English
    const r = languageShare("我们用 GRPO 训练模型，然后 the loss goes down quickly", "zh", await detector("eld"));
    expect(r!.languages.en).toBe(6);
    expect(r!.languages.unknown).toBeUndefined();
  });

  it("attacks score low: padding a Chinese reasoning with a few English words does not make it English", async () => {
    expect((await run(`${ZH} ok ok`, { target: "en" })).score).toBeLessThan(0.15);
    expect((await run(`${ZH}${ZH}${ZH} The end.`, { target: "en" })).score).toBeLessThan(0.1);
    expect((await run("######## ******** 1234", { target: "en" })).score).toBeNull();
  });

  it("validates the target code", async () => {
    expect(languageVerifier.options.safeParse({ target: "english" }).success).toBe(false);
    expect(languageVerifier.options.parse({ target: "zh-cn" }).target).toBe("zh");
  });
});
