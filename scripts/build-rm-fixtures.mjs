// Builds the small reward-model evaluation fixtures from the project's shared data (run once; tests read only the
// results): node scripts/build-rm-fixtures.mjs <shared/data folder>
//   test/fixtures/hh-rlhf/harmless-test-300.jsonl.gz   the first 300 lines of hh-rlhf harmless-base/test.jsonl.gz, as they are
//   test/fixtures/reward-bench-bon/bon-40/<model>.<i>/annotations.json.gz   40 instructions, the first 8 of each of
//     AlpacaEval's five source datasets (in sample 0's order), from every sample folder; fields instruction, dataset,
//     output_1, output_2, preference (the others dropped)
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

const shared = process.argv[2];
if (!shared) throw new Error("usage: node scripts/build-rm-fixtures.mjs <shared/data folder>");
const root = new URL("..", import.meta.url).pathname;
const hh = gunzipSync(readFileSync(join(shared, "hh-rlhf/harmless-base/test.jsonl.gz")))
  .toString("utf8")
  .split("\n")
  .filter(Boolean)
  .slice(0, 300);
mkdirSync(join(root, "test/fixtures/hh-rlhf"), { recursive: true });
writeFileSync(
  join(root, "test/fixtures/hh-rlhf/harmless-test-300.jsonl.gz"),
  gzipSync(hh.join("\n") + "\n", { level: 9 }),
);
const bon = join(shared, "reward-bench-bon");
const read = (d) => JSON.parse(gunzipSync(readFileSync(join(bon, d, "annotations.json.gz"))).toString("utf8"));
const perSource = new Map();
for (const r of read("tulu-2-dpo-13b.0")) {
  const l = perSource.get(r.dataset) ?? [];
  if (l.length < 8) l.push(r.instruction);
  perSource.set(r.dataset, l);
}
const keep = new Set([...perSource.values()].flat());
for (const d of readdirSync(bon).filter((d) => /\.\d+$/.test(d))) {
  const rows = read(d).filter((r) => keep.has(r.instruction));
  const kept = rows.map((r) => ({
    instruction: r.instruction,
    dataset: r.dataset,
    output_1: r.output_1,
    output_2: r.output_2,
    preference: r.preference,
  }));
  mkdirSync(join(root, "test/fixtures/reward-bench-bon/bon-40", d), { recursive: true });
  writeFileSync(
    join(root, "test/fixtures/reward-bench-bon/bon-40", d, "annotations.json.gz"),
    gzipSync(JSON.stringify(kept), { level: 9 }),
  );
}
