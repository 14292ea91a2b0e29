import { ok, unscorable } from "../../core/types.js";
import type { ComponentResult, Rollout } from "../../core/types.js";
import type { VerifierDefinition, VerifyFn } from "../types.js";
import { chatUrl, extractChat } from "./chat.js";
import type { JudgeChoice } from "./chat.js";
import { GroupCollector } from "./listwise.js";
import { masterKey } from "./guard.js";
import { logprobScore } from "./logprobs.js";
import type { LogprobSettings } from "./logprobs.js";
import { judgeOptions, modelClientFor } from "./options.js";
import type { JudgeOptions } from "./options.js";
import { compileParser } from "./parse.js";
import type { Parser } from "./parse.js";
import { asText, promptText, render } from "./template.js";

const RAW_HEAD = 1500;
const RAW_TAIL = 1500;

/** The judge's text for `details.raw`: whole up to 3 000 characters, else its head and tail around " … ". */
export function rawExcerpt(text: string): string {
  return text.length <= RAW_HEAD + RAW_TAIL ? text : `${text.slice(0, RAW_HEAD)} … ${text.slice(-RAW_TAIL)}`;
}

/** One judged request: per choice a score or why not, and the text. */
interface ChoiceVerdict {
  score?: number;
  value?: number | string;
  error?: string;
  text: string;
  scoredBy?: "text" | "logprobs";
  logprobs?: { token: string; mass: number; found: Record<string, number> };
  logprobError?: string;
}

/** Scores one choice: the parser on its text, then (when asked) the verdict token's probabilities. */
export function scoreChoice(
  choice: JudgeChoice,
  parser: Parser,
  lp: LogprobSettings | undefined,
  item: unknown,
): ChoiceVerdict {
  const parsed = parser.parse(choice.text, item);
  const v: ChoiceVerdict = { text: choice.text };
  if (!("error" in parsed)) {
    v.score = parsed.score;
    v.value = parsed.value;
    v.scoredBy = "text";
  } else
    v.error =
      choice.text.trim() === ""
        ? `empty answer${choice.finish ? ` (finish_reason ${choice.finish})` : ""}`
        : parsed.error;
  if (lp) {
    const s = logprobScore(choice, parser, parsed, lp);
    if ("error" in s) v.logprobError = s.error;
    else {
      v.score = s.score;
      v.scoredBy = "logprobs";
      v.logprobs = {
        token: s.token,
        mass: round(s.mass),
        found: Object.fromEntries(Object.entries(s.found).map(([k, p]) => [k, round(p)])),
      };
      delete v.error;
    }
  }
  return v;
}

function round(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

/**
 * Combines the judgments of one prompt (`samples` of them): numeric scores averaged, labels by majority (ties go to
 * the label listed first). A judgment that does not parse is left out and counted; none parsing → an error.
 */
export function combine(
  verdicts: readonly ChoiceVerdict[],
  parser: Parser,
  labels?: readonly string[],
): { score: number; details: Record<string, unknown> } | { error: string; raw: string } {
  const good = verdicts.filter((v) => v.score !== undefined);
  if (good.length === 0) {
    const first = verdicts[0];
    return { error: first?.error ?? first?.logprobError ?? "no judgment", raw: rawExcerpt(first?.text ?? "") };
  }
  const details: Record<string, unknown> = {};
  let score: number;
  // labels vote; a label judgment scored by its token probabilities is a number like any other
  if (parser.kind === "label" && !good.some((v) => v.scoredBy === "logprobs")) {
    const votes = new Map<string, { n: number; score: number }>();
    for (const v of good) {
      const e = votes.get(String(v.value)) ?? { n: 0, score: v.score! };
      e.n++;
      votes.set(String(v.value), e);
    }
    const order = (l: string): number => (labels ? labels.indexOf(l) : 0);
    const [label, e] = [...votes.entries()].sort((a, b) => b[1].n - a[1].n || order(a[0]) - order(b[0]))[0]!;
    score = e.score;
    details.label = label;
    if (verdicts.length > 1) details.votes = Object.fromEntries([...votes.entries()].map(([l, x]) => [l, x.n]));
  } else {
    score = good.reduce((s, v) => s + v.score!, 0) / good.length;
    details.rating = good.length === 1 ? good[0]!.value : good.map((v) => v.value);
  }
  if (verdicts.length > 1) {
    details.samples = verdicts.map((v) => (v.score === undefined ? null : round(v.score)));
    if (good.length < verdicts.length) details.unparsed = verdicts.length - good.length;
  }
  details.scoredBy = good.some((v) => v.scoredBy === "logprobs") ? "logprobs" : "text";
  const lp = good.find((v) => v.logprobs)?.logprobs;
  if (lp) details.logprobs = lp;
  const lpErr = verdicts.find((v) => v.logprobError)?.logprobError;
  if (lpErr && !lp) details.logprobError = lpErr;
  return { score, details };
}

type Asked = { choices: JudgeChoice[]; attempts: number } | { error: string; status?: number; attempts: number };

/** Builds the judge's chat messages from the template and the variables. */
function messagesFor(
  o: JudgeOptions,
  vars: Record<string, string | undefined>,
  item: unknown,
): { messages: Array<{ role: string; content: string }> } | { missing: string } {
  const t = o.template!;
  if (typeof t === "string") {
    const r = render(t, vars, item);
    if ("missing" in r) return r;
    return {
      messages: [
        ...(o.system !== undefined ? [{ role: "system", content: o.system }] : []),
        { role: "user", content: r.text },
      ],
    };
  }
  const messages: Array<{ role: string; content: string }> = [];
  for (const m of t) {
    const r = render(m.content, vars, item);
    if ("missing" in r) return r;
    messages.push({ role: m.role, content: r.text });
  }
  return { messages };
}

/**
 * `judge`: an LLM judge (generative reward model) over an OpenAI-compatible chat-completions endpoint. The template
 * is rendered with the rollout, sent with the sampling options, and the answer parsed into a score in [0, 1]
 * (`parse.ts`; the last match counts); with `logprobs`, the score is the verdict token's expected value under the
 * judge's top-k distribution (`logprobs.ts`, sharing the likelihood rewards' code). `samples` judgments are averaged
 * (labels: majority). `pairwise` compares the completion with the reference in both orders and averages
 * (position-swap debiasing; disagreeing orders are flagged `details.consistent: false`); `listwise` ranks a group in
 * one call (`listwise.ts`).
 *
 * Never a silent 0: an answer without a parsable score, a failed call (after bounded retries), a missing template
 * variable are `unscorable` — `judge_error` with `details.raw` (the judge's text, head and tail) and `details.error`,
 * or `no_reference`. Calls go through one {@link ModelClient} per component (limits, retries, cache, accounting:
 * `usage()` → `summary.judges.<component>`). Source: MT-Bench / Arena-Hard (FastChat `llm_judge`), Prometheus,
 * G-Eval (probability-weighted scores), AlpacaEval weighted judges; peers verl GenRM, verifiers `JudgeRubric`.
 */
export const judgeVerifier: VerifierDefinition<JudgeOptions> = {
  type: "judge",
  summary:
    "LLM judge over an OpenAI-compatible chat endpoint: template → judgment → parsed score in [0, 1] (single, pairwise, listwise)",
  options: judgeOptions,
  isolation: "inline", // awaits HTTP; the client bounds every attempt and the engine aborts at timeoutMs
  abortable: true,
  defaultPassThreshold: 0.5,
  defaultTimeoutMs: 300_000,
  reads: ["prompt", "metadata", "labels"],
  cacheable: false, // templates read any rollout field; the client caches by the rendered request instead
  create(o) {
    const parser = compileParser(o.parse ?? "ranking");
    const labels = typeof o.parse === "object" && "labels" in o.parse ? o.parse.labels : undefined;
    const client = modelClientFor("judge", o, o.cache ? o.cacheSize : 0, `${o.baseUrl} ${o.model}`);
    const url = chatUrl(o.baseUrl);
    const lpTokens = typeof o.logprobs === "object" ? o.logprobs.tokens : undefined;
    const lp: LogprobSettings | undefined =
      o.logprobs === false
        ? undefined
        : {
            topLogprobs: typeof o.logprobs === "object" ? o.logprobs.topLogprobs : 5,
            ...(lpTokens ? { tokens: lpTokens } : {}),
            position:
              (typeof o.logprobs === "object" ? o.logprobs.position : undefined) ?? (lpTokens ? "first" : "match"),
          };

    /** Asks for `samples` judgments of one prompt: `n` in one request, topped up by more requests if the server gives fewer. */
    async function ask(
      messages: Array<{ role: string; content: string }>,
      signal: AbortSignal | undefined,
    ): Promise<Asked> {
      const body: Record<string, unknown> = {
        ...(o.extraBody ?? {}),
        model: o.model,
        messages,
        temperature: o.temperature,
        [o.maxTokensField]: o.maxTokens,
      };
      if (o.topP !== undefined) body.top_p = o.topP;
      if (o.seed !== undefined) body.seed = o.seed;
      if (o.responseFormat) body.response_format = o.responseFormat;
      if (lp) Object.assign(body, { logprobs: true, top_logprobs: lp.topLogprobs });
      if (o.samples > 1) body.n = o.samples;
      const chars = messages.reduce((s, m) => s + m.content.length, 0);
      const estimateTokens = Math.ceil(chars / 4) + o.maxTokens * o.samples;
      const choices: JudgeChoice[] = [];
      let attempts = 0;
      for (let round = 0; choices.length < o.samples && round < o.samples; round++) {
        const r = await client.call(url, body, {
          extract: extractChat,
          estimateTokens,
          ...(round > 0 ? { cache: `round-${round}` } : {}),
          ...(signal ? { signal } : {}),
        });
        attempts += r.attempts;
        if (!r.ok) return { error: r.error, ...(r.status !== undefined ? { status: r.status } : {}), attempts };
        choices.push(...r.value.slice(0, o.samples - choices.length));
      }
      return { choices, attempts };
    }

    /** One prompt judged: the combined score of its samples, or an unscorable verdict. */
    async function judged(
      messages: Array<{ role: string; content: string }>,
      item: unknown,
      signal: AbortSignal | undefined,
    ): Promise<{ score: number; details: Record<string, unknown> } | ComponentResult> {
      const a = await ask(messages, signal);
      if ("error" in a)
        return unscorable("judge_error", {
          error: client.redact(a.error),
          ...(a.status !== undefined ? { status: a.status } : {}),
          attempts: a.attempts,
        });
      const verdicts = a.choices.map((c) => scoreChoice(c, parser, lp, item));
      const c = combine(verdicts, parser, labels);
      if ("error" in c) return unscorable("judge_error", { error: c.error, raw: client.redact(c.raw) });
      if (o.keepRaw) c.details.raw = client.redact(rawExcerpt(verdicts[0]!.text));
      return c;
    }

    function baseVars(_completion: string, reference: unknown, rollout: Rollout): Record<string, string | undefined> {
      return {
        prompt: promptText(rollout.prompt),
        reference: reference === undefined || reference === null ? undefined : asText(reference),
      };
    }

    function missingResult(name: string): ComponentResult {
      return name === "reference"
        ? unscorable("no_reference")
        : unscorable(name === "prompt" ? "judge_error" : "no_reference", {
            error: `the template's {{${name}}} has no value in this rollout`,
          });
    }

    // A master-key completion is still judged (so the judge's opinion of it is on record: a judge that rates ":"
    // highly is worth knowing about), but scores 0 whatever the judge said.
    const guard = (completion: string, r: ComponentResult): ComponentResult => {
      const why = o.guard ? masterKey(completion) : undefined;
      if (!why) return r;
      return ok(0, "format_mismatch", {
        guard: "master_key",
        problem: why,
        judgeScore: r.score,
        ...(r.reason ? { judgeReason: r.reason } : {}),
      });
    };
    let fn: VerifyFn;
    if (o.mode === "single") {
      fn = async ({ completion, reference, rollout, signal }) => {
        const m = messagesFor(o, { ...baseVars(completion, reference, rollout), completion }, rollout);
        if ("missing" in m) return missingResult(m.missing);
        const r = await judged(m.messages, rollout, signal);
        return guard(completion, "status" in r ? r : ok(r.score, undefined, r.details));
      };
    } else if (o.mode === "pairwise") {
      fn = async ({ completion, reference, rollout, signal }) => {
        const vars = baseVars(completion, reference, rollout);
        if (vars.reference === undefined) return unscorable("no_reference");
        const ab = messagesFor(o, { ...vars, answer_a: completion, answer_b: vars.reference }, rollout);
        if ("missing" in ab) return missingResult(ab.missing);
        const ba = o.swap
          ? messagesFor(o, { ...vars, answer_a: vars.reference, answer_b: completion }, rollout)
          : undefined;
        const [first, second] = await Promise.all([
          judged(ab.messages, rollout, signal),
          ba && "messages" in ba ? judged(ba.messages, rollout, signal) : undefined,
        ]);
        return guard(completion, pairwiseResult(first, second));
      };
    } else {
      const collector = new GroupCollector(o.groupSize!, o.groupWaitMs, async (members, signal) => {
        const completions = members.map((m, k) => `[${k + 1}]\n${m.completion}`).join("\n\n");
        const first = members[0]!;
        const vars = {
          ...baseVars(first.completion, first.reference, first.rollout),
          completions,
          n: String(members.length),
        };
        const m = messagesFor(o, vars, first.rollout);
        if ("missing" in m) return members.map(() => missingResult(m.missing));
        const a = await ask(m.messages, signal);
        if ("error" in a)
          return members.map(() =>
            unscorable("judge_error", {
              error: client.redact(a.error),
              ...(a.status !== undefined ? { status: a.status } : {}),
              attempts: a.attempts,
            }),
          );
        return rankRewards(a.choices, parser, members.length, (t) => client.redact(t));
      });
      fn = async ({ completion, reference, rollout, signal }) => {
        return guard(completion, await collector.add(rollout.group, { completion, reference, rollout }, signal));
      };
    }
    fn.usage = () => client.stats();
    return fn;
  },
};

/**
 * Combines the two orders of a pairwise judgment. `first`: the completion shown as A; `second`: shown as B, so its
 * score is 1 − P(A). Both present → their mean, `consistent` false when they pick different winners (one says the
 * completion is better, the other worse). One order failed → the other alone (`debiased: false`).
 */
export function pairwiseResult(
  first: { score: number; details: Record<string, unknown> } | ComponentResult,
  second: { score: number; details: Record<string, unknown> } | ComponentResult | undefined,
): ComponentResult {
  const okFirst = !("status" in first);
  if (second === undefined) return okFirst ? ok(first.score, undefined, { ...first.details, orders: 1 }) : first;
  const okSecond = !("status" in second);
  if (!okFirst && !okSecond) return first;
  if (!okFirst || !okSecond) {
    const s = okFirst ? first : (second as { score: number; details: Record<string, unknown> });
    const score = okFirst ? s.score : 1 - s.score;
    const failed = (okFirst ? second : first) as ComponentResult;
    return ok(score, undefined, {
      ...s.details,
      orders: 1,
      debiased: false,
      otherOrder: failed.details?.error ?? failed.reason,
    });
  }
  const a = first.score;
  const b = 1 - second.score;
  const side = (x: number): number => Math.sign(Math.round((x - 0.5) * 1e9));
  const consistent = side(a) === side(b);
  return ok((a + b) / 2, undefined, {
    asA: round(a),
    asB: round(b),
    consistent,
    verdicts: [first.details.rating ?? first.details.label, second.details.rating ?? second.details.label],
  });
}

/**
 * Listwise rewards from one or more rankings of the group's `n` completions (best first, item numbers from 1):
 * linear rank mapping, reward = (m − 1 − position)/(m − 1) over the m items a ranking lists (best 1, worst 0),
 * averaged over samples. A ranking that repeats or invents an item is unusable; items no usable ranking lists are
 * `judge_error`.
 */
export function rankRewards(
  choices: readonly JudgeChoice[],
  parser: Parser,
  n: number,
  redact: (t: string) => string = (t) => t,
): ComponentResult[] {
  const sums = new Float64Array(n);
  const counts = new Int32Array(n);
  const problems: string[] = [];
  for (const c of choices) {
    const p = parser.parse(c.text);
    if ("error" in p) {
      problems.push(p.error);
      continue;
    }
    const order = String(p.value).split(",").map(Number);
    if (
      order.some((k) => !Number.isInteger(k) || k < 1 || k > n) ||
      new Set(order).size !== order.length ||
      order.length < 2
    ) {
      problems.push(`ranking [${order.join(", ")}] is not a ranking of items 1..${n}`);
      continue;
    }
    const m = order.length;
    order.forEach((k, pos) => {
      sums[k - 1]! += (m - 1 - pos) / (m - 1);
      counts[k - 1]!++;
    });
  }
  const raw = redact(rawExcerpt(choices[0]?.text ?? ""));
  return Array.from({ length: n }, (_, k) =>
    counts[k]! > 0
      ? ok(sums[k]! / counts[k]!, undefined, { item: k + 1, groupSize: n, rankings: counts[k] })
      : unscorable("judge_error", { error: problems[0] ?? `item ${k + 1} is not in the ranking`, raw, item: k + 1 }),
  );
}
