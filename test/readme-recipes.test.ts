/**
 * The README's trainer recipes ("### Trainer recipes") parsed and checked against the trainers' real configuration
 * surface, so no recipe names a key, flag, manager or function that does not exist. The known names were read from
 * the trainers' sources at these releases (current and previous):
 *
 * - verl v0.9.0 / v0.8.0 (verl-project/verl; HEAD 1dda039b agrees): `verl/trainer/config/reward/reward.yaml`
 *   (`reward.custom_reward_function.{path,name,reward_kwargs}`, `reward.reward_manager.name`), the `@register`
 *   names under `verl/experimental/reward_loop/reward_manager/` that `RewardManagerConfig.__post_init__` asserts
 *   against, `verl/trainer/config/algorithm.py` (`adv_estimator`, `gdpo_reward_keys`); legacy v0.6.0
 *   `ppo_trainer.yaml` (`custom_reward_function.*`, `reward_model.reward_manager`) and
 *   `verl/workers/reward_manager/` (`naive`, `prime`, `batch`, `dapo`).
 * - TRL v1.9.0 / v1.8.0 (huggingface/trl; HEAD f2cd5771): `GRPOConfig` fields and `GRPOTrainer.__init__` parameters.
 * - OpenRLHF v0.11.0 / v0.10.4 (OpenRLHF/OpenRLHF; HEAD 3c3be623): `openrlhf/cli/train_ppo_ray.py` argparse flags.
 * - verifiers v0.3.0 / v0.2.1 (PrimeIntellect-ai/verifiers): `Rubric.__init__`, `Environment.__init__`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, ROOT } from "./helpers.js";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const CLIENT = readFileSync(join(ROOT, "clients/python/rewardkit_client.py"), "utf8");

const VERL_KEYS = new Set([
  "reward.custom_reward_function.path",
  "reward.custom_reward_function.name",
  "reward.reward_manager.name",
  "algorithm.adv_estimator",
  "algorithm.gdpo_reward_keys",
]);
const VERL_MANAGERS = new Set(["naive", "dapo", "gdpo", "rate_limited", "remote"]);
const VERL_LEGACY_MANAGERS = new Set(["naive", "prime", "batch", "dapo"]);
const VERL_ESTIMATORS = new Set(["gae", "grpo", "gdpo", "rloo", "reinforce_plus_plus", "remax", "opo", "grpo_passk"]);
const GRPO_CONFIG = new Set([
  "output_dir",
  "reward_weights",
  "multi_objective_aggregation",
  "num_generations",
  "max_completion_length",
  "learning_rate",
]);
const GRPO_TRAINER = new Set([
  "model",
  "reward_funcs",
  "args",
  "train_dataset",
  "eval_dataset",
  "processing_class",
  "reward_processing_classes",
  "callbacks",
  "optimizers",
  "peft_config",
]);
const OPENRLHF_FLAGS = new Set([
  "--reward.remote_url",
  "--data.label_key",
  "--algo.dynamic_filtering_enable",
  "--algo.dynamic_filtering_range",
]);
const VF_RUBRIC = new Set(["funcs", "weights", "parser"]);
const VF_ENV = new Set(["dataset", "eval_dataset", "system_prompt", "parser", "rubric"]);

/** The section's text and its fenced code blocks. */
function section(): { text: string; blocks: Array<{ lang: string; lines: string[] }> } {
  const start = README.indexOf("### Trainer recipes");
  expect(start, "README has a '### Trainer recipes' section").toBeGreaterThan(0);
  const rest = README.slice(start + 1);
  const end = rest.search(/\n## |\nBenchmark: /);
  const text = rest.slice(0, end < 0 ? undefined : end);
  const blocks = [...text.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1]!,
    lines: m[2]!.replace(/\n$/, "").split("\n"),
  }));
  return { text, blocks };
}

/** Top-level (async) def names of the client module. */
const clientFunctions = new Set([...CLIENT.matchAll(/^(?:async )?def (\w+)\(/gm)].map((m) => m[1]!));

/** `key=value` overrides of a verl command line (env assignments, flags and `...` dropped; `+` prefix removed). */
function verlOverrides(block: string): Array<[string, string]> {
  return block
    .replace(/\\\n/g, " ")
    .split(/\s+/)
    .filter((t) => /^\+?[a-z_]+(\.[a-z_]+)+=/.test(t))
    .map((t) => {
      const k = t.indexOf("=");
      return [t.slice(0, k).replace(/^\+/, ""), t.slice(k + 1)];
    });
}

/** Keyword arguments of every call `name(...)` in a Python snippet (one level of nesting is enough here). */
function kwargsOf(code: string, name: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(new RegExp(`\\b${name.replace(".", "\\.")}\\(`, "g"))) {
    let depth = 0;
    let i = m.index + m[0].length;
    let arg = "";
    const args: string[] = [];
    for (; i < code.length; i++) {
      const ch = code[i]!;
      if ("([{".includes(ch)) depth++;
      if (")]}".includes(ch)) {
        if (depth === 0) break;
        depth--;
      }
      if (ch === "," && depth === 0) {
        args.push(arg);
        arg = "";
      } else arg += ch;
    }
    args.push(arg);
    for (const a of args) {
      const k = /^\s*(\w+)\s*=/.exec(a);
      if (k) out.push(k[1]!);
    }
  }
  return out;
}

describe("README trainer recipes", () => {
  const { text, blocks } = section();

  it("has one recipe per trainer, each at most 5 lines", () => {
    const joined = blocks.map((b) => b.lines.join("\n"));
    for (const needle of ["verl.trainer.main_ppo", "GRPOTrainer", "openrlhf.cli.train_ppo_ray", "vf.Rubric"])
      expect(
        joined.some((b) => b.includes(needle)),
        needle,
      ).toBe(true);
    for (const b of blocks) expect(b.lines.length, b.lines.join("\n")).toBeLessThanOrEqual(5);
  });

  it("verl: every override is a key of verl v0.9.0 / v0.8.0, naming a registered manager and a client function", () => {
    const verl = blocks.filter((b) => b.lines.join("\n").includes("verl.trainer.main_ppo"));
    expect(verl.length).toBeGreaterThanOrEqual(2);
    for (const b of verl) {
      const overrides = verlOverrides(b.lines.join("\n"));
      expect(overrides.length).toBeGreaterThan(0);
      for (const [key, value] of overrides) {
        expect(VERL_KEYS.has(key), `unknown verl key ${key}`).toBe(true);
        if (key === "reward.reward_manager.name") expect(VERL_MANAGERS.has(value), `manager ${value}`).toBe(true);
        if (key === "reward.custom_reward_function.name")
          expect(clientFunctions.has(value), `client function ${value}`).toBe(true);
        if (key === "reward.custom_reward_function.path") expect(value).toBe("clients/python/rewardkit_client.py");
        if (key === "algorithm.adv_estimator") expect(VERL_ESTIMATORS.has(value), `estimator ${value}`).toBe(true);
        if (key === "algorithm.gdpo_reward_keys")
          for (const c of value.replace(/^\[|\]$/g, "").split(","))
            expect(["accuracy", "format", "overlong"]).toContain(c);
      }
    }
    // the prose: reward_kwargs the client reads, legacy keys
    for (const m of text.matchAll(/reward_kwargs\.(\w+)/g))
      expect(CLIENT, `reward_kwargs.${m[1]}`).toMatch(new RegExp(`kw(?:\\.get\\()?\\(?"${m[1]}"`));
    for (const m of text.matchAll(/`custom_reward_function\.name=(\w+)`/g))
      expect(clientFunctions.has(m[1]!), m[1]).toBe(true);
    for (const m of text.matchAll(/reward_model\.reward_manager=(\w+)/g))
      expect(VERL_LEGACY_MANAGERS.has(m[1]!), m[1]).toBe(true);
    expect(text).not.toMatch(/reward\.reward_manager\.name=batch/);
  });

  it("TRL: GRPOConfig / GRPOTrainer arguments exist in TRL v1.9.0 / v1.8.0; rk.* names exist in the client", () => {
    const trl = blocks.find((b) => b.lines.join("\n").includes("GRPOTrainer"))!.lines.join("\n");
    for (const k of kwargsOf(trl, "GRPOConfig")) expect(GRPO_CONFIG.has(k), `GRPOConfig(${k}=)`).toBe(true);
    for (const k of kwargsOf(trl, "GRPOTrainer")) expect(GRPO_TRAINER.has(k), `GRPOTrainer(${k}=)`).toBe(true);
    for (const m of text.matchAll(/multi_objective_aggregation="(\w+)"/g))
      expect(["sum_then_normalize", "normalize_then_sum"]).toContain(m[1]);
  });

  it("every rk.<name> in the section is a function of the client", () => {
    const names = [...text.matchAll(/\brk\.(\w+)/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(4);
    for (const n of names) expect(clientFunctions.has(n), `rk.${n}`).toBe(true);
  });

  it("OpenRLHF: flags of OpenRLHF v0.11.0 / v0.10.4; rewardkit serve flags exist", () => {
    const block = blocks.find((b) => b.lines.join("\n").includes("openrlhf.cli.train_ppo_ray"))!.lines;
    const trainer = block.find((l) => l.includes("openrlhf.cli.train_ppo_ray"))!;
    const flags = [...trainer.matchAll(/(--[\w.]+)/g)].map((m) => m[1]!);
    expect(flags).toContain("--reward.remote_url");
    for (const f of flags) expect(OPENRLHF_FLAGS.has(f), f).toBe(true);
    for (const m of text.matchAll(/`(--algo\.[\w.]+)`/g)) expect(OPENRLHF_FLAGS.has(m[1]!), m[1]).toBe(true);
    const help = cli(["serve", "--help"]).stdout;
    const serve = block.find((l) => l.includes("rewardkit serve"))!;
    for (const m of [...serve.matchAll(/(--[\w-]+)/g), ...text.matchAll(/`(--end-token)`/g)])
      expect(help, m[1]).toContain(m[1]!);
  });

  it("prime-rl / verifiers: Rubric and SingleTurnEnv arguments of verifiers v0.3.0 / v0.2.1", () => {
    for (const k of kwargsOf(text, "vf.Rubric")) expect(VF_RUBRIC.has(k), `Rubric(${k}=)`).toBe(true);
    for (const k of kwargsOf(text, "vf.SingleTurnEnv")) expect(VF_ENV.has(k), `SingleTurnEnv(${k}=)`).toBe(true);
  });
});
