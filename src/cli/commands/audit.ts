import type { Command } from "commander";
import { passes } from "../../compose/reward.js";
import { AgreementBuilder } from "../../diagnostics/agreement.js";
import { createScorer } from "../../engine/scorer.js";
import { mapOrdered } from "../../engine/ordered.js";
import { readLines } from "../../io/jsonl.js";
import { formatProblem } from "../../spec/errors.js";
import { parseSpec } from "../../spec/load.js";
import type { Rollout } from "../../core/types.js";
import { collect, intOption, parseSettings } from "../options.js";
import { UsageError } from "../errors.js";
import { createProgress } from "../progress.js";

interface AuditOpts {
  verifier: string;
  pairs: string;
  set: string[];
  json?: boolean;
  concurrency?: number;
  examples: number;
}

/**
 * `rewardkit audit --verifier <type> --pairs <pairs.jsonl>`: how often does a verifier agree with labelled
 * pairs `{"gold", "pred", "expected"}`? Prints agreement, false positives (judged equal, expected not) and
 * false negatives with examples, and throughput.
 */
export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description("measure a verifier against labelled pairs {gold, pred, expected}")
    .requiredOption("--verifier <type>", "verifier type, e.g. math")
    .requiredOption("--pairs <file>", 'JSONL of {"gold": ..., "pred": ..., "expected": true|false}')
    .option("--set <key=value>", "verifier option (repeatable)", collect, [])
    .option("--json", "print the report as JSON")
    .option("--concurrency <n>", "worker threads (default: CPU count)", intOption)
    .option("--examples <n>", "examples of each error kind to show", intOption, 10)
    .action(async (o: AuditOpts) => {
      const specText = JSON.stringify({
        name: `audit-${o.verifier}`,
        components: [{ name: o.verifier, type: o.verifier, ...parseSettings(o.set) }],
      });
      const spec = parseSpec(specText, `--verifier ${o.verifier}`);
      const scorer = createScorer(spec, o.concurrency === undefined ? {} : { concurrency: o.concurrency });
      const agreement = new AgreementBuilder("expected", o.verifier, o.examples);
      const reasons: Record<string, number> = {};
      let malformed = 0;
      const progress = createProgress("auditing", !o.json);
      const t0 = performance.now();
      async function* pairs(): AsyncGenerator<{ rollout: Rollout; expected: unknown }> {
        for await (const { line, text } of readLines(o.pairs)) {
          let p: { gold?: unknown; pred?: unknown; expected?: unknown };
          try {
            p = JSON.parse(text) as typeof p;
          } catch (e) {
            malformed++;
            process.stderr.write(
              `skipped ${formatProblem({ file: o.pairs, line, path: "", message: `invalid JSON: ${(e as Error).message}` })}\n`,
            );
            continue;
          }
          if (p.pred === undefined || p.pred === null) {
            malformed++;
            process.stderr.write(
              `skipped ${formatProblem({ file: o.pairs, line, path: "pred", message: "missing" })}\n`,
            );
            continue;
          }
          const id = `line-${line}`;
          yield {
            rollout: {
              id,
              group: id,
              completion: typeof p.pred === "string" ? p.pred : JSON.stringify(p.pred),
              reference: p.gold,
            },
            expected: p.expected,
          };
        }
      }
      let n = 0;
      try {
        await mapOrdered(
          pairs(),
          256,
          ({ rollout }) => scorer.score(rollout),
          ({ results }, { rollout, expected }) => {
            const r = results[0]!;
            if (r.reason) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
            agreement.add(expected, passes(spec, results, 0), {
              id: rollout.id,
              score: r.score,
              ...(r.reason ? { reason: r.reason } : {}),
              extracted: r.details?.extracted,
              reference: rollout.reference,
            });
            progress.update(++n);
          },
        );
      } finally {
        progress.stop();
        await scorer.close();
      }
      const seconds = (performance.now() - t0) / 1000;
      const a = agreement.finish();
      if (a.n === 0) throw new UsageError(`${o.pairs}: no pair with a boolean "expected" field`);
      const report = {
        verifier: o.verifier,
        ...a,
        malformed,
        reasons,
        seconds: Math.round(seconds * 1000) / 1000,
        samplesPerSecond: Math.round(n / seconds),
      };
      if (o.json) {
        process.stdout.write(JSON.stringify(report, null, 2) + "\n");
        return;
      }
      const pct = (x: number | null): string => (x === null ? "-" : `${(x * 100).toFixed(2)}%`);
      const out = [
        `${o.verifier}: agreement ${a.agree}/${a.n} = ${pct(a.agreement)}  false positives ${a.falsePositives}  false negatives ${a.falseNegatives}  unscorable ${a.unscorable}  (${report.samplesPerSecond} pairs/s)`,
        `reasons: ${
          Object.entries(reasons)
            .map(([k, v]) => `${k}:${v}`)
            .join(" ") || "-"
        }`,
      ];
      for (const [kind, list] of [
        ["false positive", a.examples.falsePositives],
        ["false negative", a.examples.falseNegatives],
      ] as const) {
        for (const e of list)
          out.push(
            `  ${kind} ${e.id}: score=${e.score ?? "null"}${e.reason ? ` (${e.reason})` : ""} extracted=${JSON.stringify(e.extracted ?? null)} gold=${JSON.stringify(e.reference ?? null)}`,
          );
      }
      process.stdout.write(out.join("\n") + "\n");
    });
}
