import { nullable } from "../advantage/compute.js";
import { UserError } from "../core/errors.js";
import { readLines } from "../io/jsonl.js";
import { openLineWriter } from "../io/output.js";
import { toRollout } from "../io/rollout.js";
import { Spill } from "../io/spill.js";
import type { Problem } from "../spec/errors.js";
import type { AdvantagePlan, ScoredResult } from "./scored-rows.js";
import { readScoredRecord, ScoredRows } from "./scored-rows.js";
import { InputError } from "./score-file.js";

export interface AdvantagesFileOptions {
  /** Input JSONL path (`.gz` by extension) or `-` for stdin. */
  input: string;
  /** Output JSONL path (folders created) or undefined/`-` for stdout. */
  output?: string;
  /** `--map` canonical field → source path. */
  map?: Record<string, string>;
  /** Response length field (default `completion_tokens`). */
  lengthField?: string;
  /** Stop at the first malformed line instead of reporting and skipping it. */
  strict?: boolean;
  /** Called for each malformed line (file, line, field, reason). */
  onProblem?: (p: Problem) => void;
}

/** What {@link advantagesFile} computed. */
export interface AdvantagesFileResult extends ScoredResult {
  /** Rows read and written. */
  count: number;
  groups: number;
  /** Lines skipped as malformed. */
  malformed: number;
}

/**
 * The `rewardkit advantages` job, the mirror of `scoreFile`: streams scored rows (`score`'s output, or any JSONL
 * with `group` and `reward`, plus `components` for multi-component estimators), computes the plan's advantages
 * over the whole file with the same collector as the score job, and writes every readable line back with its
 * `advantage` (replacing one already there), in input order. Rows of groups a filter drops stay, with
 * `advantage: null`: the same rows come out as went in. Two passes over a spill file keep memory bounded.
 * @throws {InputError} in strict mode; {UserError} when no line could be read or the estimator refuses the batch.
 */
export async function advantagesFile(plan: AdvantagePlan, o: AdvantagesFileOptions): Promise<AdvantagesFileResult> {
  const file = o.input === "-" ? "<stdin>" : o.input;
  const map = o.map ?? {};
  const rows = new ScoredRows(plan);
  const fields = {
    map,
    ...(o.lengthField ? { lengthField: o.lengthField } : {}),
    ...(plan.stratumKey !== undefined ? { stratumKey: plan.stratumKey } : {}),
  };
  let malformed = 0;
  const report = (line: number, path: string, message: string): void => {
    const p: Problem = { file, line, path, message };
    if (o.strict) throw new InputError(p);
    malformed++;
    o.onProblem?.(p);
  };
  const spill = new Spill();
  try {
    for await (const { line, text } of readLines(o.input, {
      onProblem: (line, message) => report(line, "", message),
    })) {
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch (e) {
        report(line, "", `invalid JSON: ${(e as Error).message}`);
        continue;
      }
      const r = toRollout(record, line, map, "advantages");
      if ("problem" in r) {
        report(line, r.problem.field, r.problem.message);
        continue;
      }
      const rec = record as Record<string, unknown>;
      const s = readScoredRecord(rec, r.rollout.group, fields);
      if ("problem" in s) {
        report(line, s.problem.field, s.problem.message);
        continue;
      }
      rows.add(s.row);
      if ("advantage" in rec) {
        delete rec.advantage; // appended in pass two
        await spill.write(JSON.stringify(rec));
      } else await spill.write(text.trimEnd());
    }
    // as in `score`: a run that reads nothing is a mistake (a wrong file or --map), not an empty success
    if (rows.size === 0 && malformed > 0)
      throw new UserError(`${file}: no rollout could be read: all ${malformed} lines were malformed`);
    let result: ScoredResult;
    try {
      result = rows.compute();
    } catch (e) {
      throw new UserError((e as Error).message);
    }
    const writer = openLineWriter(o.output);
    try {
      let k = 0;
      for await (const { text } of spill.read()) {
        const adv = JSON.stringify(nullable(result.advantages[k++]!));
        await writer.write(text === "{}" ? `{"advantage":${adv}}` : `${text.slice(0, -1)},"advantage":${adv}}`);
      }
      await writer.close();
    } catch (e) {
      writer.destroy();
      throw e;
    }
    return { ...result, count: rows.size, groups: rows.groupCount, malformed };
  } finally {
    spill.dispose();
  }
}
