import { z } from "zod";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { completionText } from "../../core/completion.js";
import { ok, unscorable } from "../../core/types.js";
import { interpreterProblem } from "../../sandbox/interpreter.js";
import { INTERPRETERS, localBackend, probeBwrap } from "../../sandbox/local.js";
import { missingModules, MODULE_NAME } from "../../sandbox/modules.js";
import { sharedPool } from "../../sandbox/pool.js";
import { remotePool, REMOTE_CONCURRENCY, sandboxFusionBackend } from "../../sandbox/sandboxfusion.js";
import { selfTest, TASK_KINDS } from "../../sandbox/selftest.js";
import type { HarnessTask, Language, SandboxBackend, SandboxLimits, TestStatus } from "../../sandbox/types.js";
import { DEFAULT_LIMITS, TEST_STATUSES } from "../../sandbox/types.js";
import type { VerifierDefinition } from "../types.js";
import { extractProgram } from "./extract.js";
import { pythonImports } from "./imports.js";
import type { CodeReference } from "./reference.js";
import { codeReference, LEETCODE_PRELUDE, LEETCODE_SORTED, nativeReference } from "./reference.js";
import { difficultyWeights, scoreTests } from "./score.js";

const ms = (max: number, def: number) => z.number().int().positive().max(max).default(def);

const options = z
  .strictObject({
    /** Language of the program (a reference's `language` overrides it): `python` (/usr/bin/python3) or `javascript` (/usr/bin/node). */
    language: z.enum(["python", "javascript"]).default("python"),
    /** Which fenced block is the program: `last` (default), `first`, `all` (joined), or `whole` (the completion). */
    extract: z.enum(["last", "first", "all", "whole"]).default("last"),
    /** `all` (1 if every test passes), `fraction` (passed / total) or `weighted` (VeRPO, see docs/code.md). */
    score: z.enum(["all", "fraction", "weighted"]).default("all"),
    /** `weighted` only: the score of a partial pass is `denseScale × weighted pass fraction` (a full pass is 1). */
    denseScale: z.number().gt(0).max(1).default(0.5),
    /** `bwrap` (default, local bubblewrap sandbox), `none` (plain process with limits only; warns), `sandboxfusion` (remote). */
    sandbox: z.enum(["bwrap", "none", "sandboxfusion"]).default("bwrap"),
    /** Base URL of a SandboxFusion server (`sandbox: sandboxfusion`). */
    sandboxFusionUrl: z.url().optional(),
    /** `sandbox: sandboxfusion`: retries of a request that met a transient fault (429, 5xx, a dropped connection), with backoff. */
    sandboxFusionRetries: z.number().int().min(0).max(10).default(3),
    /**
     * The Python of the sandbox's judge and worker, an absolute path (default `/usr/bin/python3`), e.g. a venv's
     * `/opt/venv/bin/python3`: under bubblewrap the venv (and its base interpreter, when outside /usr) is bound
     * read-only. Local sandboxes only.
     */
    python: z.string().startsWith("/", "an absolute path").optional(),
    /**
     * Python modules the tasks import (`[sortedcontainers, numpy]`): checked in the sandbox's interpreter by
     * `rewardkit check` and `/readyz`; while one is missing, every Python verdict is `sandbox_error` (never the
     * false 0 of a `ModuleNotFoundError`).
     */
    modules: z.array(z.string().regex(MODULE_NAME, "a Python module name")).default([]),
    /** Time limit of one test, ms of CPU time of the program's process (wall-clock backstop: 10×). */
    testTimeoutMs: ms(120_000, DEFAULT_LIMITS.testTimeoutMs),
    /** Time limit of the whole sandbox run of one rollout (every test), ms; CPU seconds are capped alike. */
    runTimeoutMs: ms(600_000, DEFAULT_LIMITS.runTimeoutMs),
    /** Address-space limit of the sandbox, MiB. */
    memoryMb: z.number().int().min(64).max(65_536).default(DEFAULT_LIMITS.memoryMb),
    /** Processes the program may run at once (fork-bomb bound). */
    maxProcesses: z.number().int().min(4).max(4096).default(DEFAULT_LIMITS.maxProcesses),
    /** Largest file the program may write, MiB. */
    maxFileMb: z.number().int().min(0).max(4096).default(DEFAULT_LIMITS.maxFileMb),
    /** Open file descriptors. */
    maxOpenFiles: z.number().int().min(16).max(65_536).default(DEFAULT_LIMITS.maxOpenFiles),
    /** Program output kept per test (characters) and of stderr (bytes); the rest is dropped. */
    outputLimitBytes: z
      .number()
      .int()
      .min(1024)
      .max(1 << 30)
      .default(DEFAULT_LIMITS.outputLimitBytes),
    /**
     * Sandboxes run at once (default: available parallelism; with `sandbox: sandboxfusion`, requests in flight per
     * server, default 16). Shared by every code component of the engine (per server for SandboxFusion); the first
     * component's value wins.
     */
    concurrency: z.number().int().positive().max(1024).optional(),
    /** As root, slot i of the pool runs as uid `uidBase + i` (unused uids: the sandbox owns nothing on the host). */
    uidBase: z.number().int().min(1000).max(2_000_000_000).default(61_000),
  })
  .superRefine((o, ctx) => {
    if (o.sandbox === "sandboxfusion" && !o.sandboxFusionUrl)
      ctx.addIssue({ code: "custom", path: ["sandboxFusionUrl"], message: "required with sandbox: sandboxfusion" });
    if (o.sandbox === "sandboxfusion" && o.python !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["python"],
        message: "a local sandbox's interpreter: SandboxFusion runs its own (leave python out)",
      });
  });
export type CodeOptions = z.infer<typeof options>;

const KEEP_FAILURES = 3;

function harnessTask(ref: CodeReference, program: string): HarnessTask {
  const prelude =
    "prelude" in ref && ref.prelude !== undefined
      ? ref.prelude === "leetcode"
        ? LEETCODE_PRELUDE + (/\bSorted(List|Dict|Set|KeyList)\b/.test(program) ? LEETCODE_SORTED : "")
        : ref.prelude
      : undefined;
  const withPrelude = <T extends HarnessTask>(t: T): T => (prelude ? { ...t, prelude } : t);
  if (ref.kind === "assert")
    return withPrelude({
      kind: "assert",
      program,
      ...(ref.entryPoint ? { entryPoint: ref.entryPoint } : {}),
      test: ref.test,
    });
  if (ref.kind === "call")
    return withPrelude({
      kind: "call",
      program,
      entryPoint: ref.entryPoint,
      cases: ref.cases,
      atol: ref.atol,
      encoding: ref.encoding,
      ...(ref.compare ? { compare: ref.compare } : {}),
    });
  return { kind: "stdio", program, cases: ref.cases, compare: ref.compare, atol: ref.atol, rtol: ref.rtol };
}

function weightsOf(ref: CodeReference, n: number): { weights?: number[]; source: string } {
  if (ref.weights && ref.weights.length === n) return { weights: ref.weights, source: "reference.weights" };
  if (ref.passRates && ref.passRates.length === n)
    return { weights: difficultyWeights(ref.passRates), source: "reference.passRates" };
  const declared = ref.weights ?? ref.passRates;
  return { source: declared ? `uniform (reference declares ${declared.length} values for ${n} tests)` : "uniform" };
}

function makeBackend(o: CodeOptions, warn = true): SandboxBackend {
  if (o.sandbox === "sandboxfusion") {
    const url = o.sandboxFusionUrl!;
    return sandboxFusionBackend(remotePool(url, o.concurrency ?? REMOTE_CONCURRENCY), {
      url,
      retries: o.sandboxFusionRetries,
    });
  }
  const pool = sharedPool(o.concurrency);
  if (o.sandbox === "none" && warn) {
    console.warn(
      "rewardkit: code verifier runs with `sandbox: none`: completions execute WITHOUT isolation (resource limits and a separate uid only)",
    );
  }
  return localBackend(pool, {
    uidBase: o.uidBase,
    isolate: o.sandbox === "bwrap",
    ...(o.python !== undefined ? { python: o.python } : {}),
  });
}

function limitsOf(o: CodeOptions): SandboxLimits {
  return {
    testTimeoutMs: Math.min(o.testTimeoutMs, o.runTimeoutMs),
    runTimeoutMs: o.runTimeoutMs,
    memoryMb: o.memoryMb,
    maxProcesses: o.maxProcesses,
    maxFileMb: o.maxFileMb,
    maxOpenFiles: o.maxOpenFiles,
    outputLimitBytes: o.outputLimitBytes,
  };
}

/**
 * Why this host cannot run `kind` programs of `language` (bubblewrap unusable, or the self-test of selftest.ts
 * failed), or undefined. Both are cached per process.
 */
async function hostProblem(
  o: CodeOptions,
  backend: SandboxBackend,
  language: Language,
  kind: HarnessTask["kind"],
  limits: SandboxLimits,
): Promise<string | undefined> {
  if (o.sandbox === "bwrap") {
    const missing = await probeBwrap();
    if (missing !== undefined) return missing;
  }
  if (o.python !== undefined && language === "python") {
    const bad = interpreterProblem(o.python);
    if (bad !== undefined) return bad;
  }
  const broken = await selfTest(backend, language, kind, limits);
  if (broken !== undefined || language !== "python") return broken;
  return modulesProblem(o, backend, o.modules, limits, "declared in modules:");
}

/** The interpreter the sandbox runs, in words. */
function interpreterOf(o: CodeOptions): string {
  return o.sandbox === "sandboxfusion"
    ? `SandboxFusion's python (${o.sandboxFusionUrl})`
    : (o.python ?? INTERPRETERS.python);
}

/**
 * Why the sandbox's Python cannot run tasks that import `modules` (some do not import), or undefined. `whose`
 * says who needs them: `declared in modules:`, or per module the rollouts that import it.
 */
async function modulesProblem(
  o: CodeOptions,
  backend: SandboxBackend,
  modules: readonly string[],
  limits: SandboxLimits,
  whose: string | ((module: string) => string),
): Promise<string | undefined> {
  const r = await missingModules(backend, modules, limits);
  if ("error" in r) return `module check (${modules.join(", ")}) failed: ${r.error}`;
  if (r.missing.length === 0) return undefined;
  const listed =
    typeof whose === "string"
      ? `${r.missing.join(", ")} (${whose})`
      : r.missing.map((m) => `${m} (${whose(m)})`).join(", ");
  const debian = r.missing.map((m) => `python3-${m.toLowerCase()}`).join(" ");
  return `${interpreterOf(o)} lacks modules the tasks import: ${listed} — install them (Debian: ${debian}; \`npm run setup:code\` installs the usual set) or name a venv that has them in \`python:\` (docs/code.md)`;
}

/**
 * Modules the Python programs and test code of `sample` import, each with the ids of (up to three of) the rollouts
 * that import it: the completions' programs (extracted as the component would) and the references' test code and
 * preludes.
 */
function sampleImports(o: CodeOptions, sample: readonly Rollout[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const r of sample) {
    const sources: string[] = [];
    const native = r.reference === undefined || r.reference === null ? undefined : nativeReference(r.reference);
    const parsed = native?.error === undefined ? codeReference.safeParse(native?.value) : undefined;
    const ref = parsed?.success ? parsed.data : undefined;
    if ((ref?.language ?? o.language) !== "python") continue;
    const program = extractProgram(completionText(r.completion), "python", o.extract);
    if (program !== undefined) sources.push(program);
    if (ref?.kind === "assert") sources.push(ref.test);
    if (ref && ref.kind !== "stdio" && ref.prelude !== undefined)
      sources.push(ref.prelude === "leetcode" ? LEETCODE_PRELUDE : ref.prelude);
    for (const m of new Set(sources.flatMap(pythonImports))) {
      const ids = found.get(m) ?? [];
      ids.push(r.id);
      found.set(m, ids);
    }
  }
  return found;
}

/**
 * `code`: runs the completion's program against the unit tests in the rollout's `reference`, in a sandbox (one
 * per rollout: bubblewrap + prlimit as an unprivileged uid, or SandboxFusion), and scores the per-test statuses.
 * Inline: the verify function only awaits the sandbox pool; the sandbox enforces its own deadlines with a
 * process-group kill. See docs/code.md for the reference shapes, statuses and scores.
 */
export const codeVerifier: VerifierDefinition<CodeOptions> = {
  type: "code",
  summary:
    "unit tests from the reference run on the completion's program in a sandbox (all / fraction / VeRPO-weighted)",
  options,
  isolation: "inline",
  selfTimed: true, // the sandbox pool queues runs and kills each at its own deadline
  defaultTimeoutMs: 60_000,
  create(o) {
    const backend = makeBackend(o);
    const limits = limitsOf(o);
    return async ({ completion, reference }): Promise<ComponentResult> => {
      if (reference === undefined || reference === null) return unscorable("no_reference");
      const native = nativeReference(reference);
      if (native.error !== undefined) return unscorable("invalid_reference", { error: native.error });
      const parsed = codeReference.safeParse(native.value);
      if (!parsed.success) {
        const i = parsed.error.issues[0]!;
        return unscorable("invalid_reference", { error: `${i.path.join(".") || "reference"}: ${i.message}` });
      }
      const ref = parsed.data;
      const language: Language = ref.language ?? o.language;
      if (ref.kind === "call" && ref.encoding === "python" && language !== "python") {
        return unscorable("invalid_reference", { error: "encoding: python needs language: python" });
      }
      if (ref.kind !== "stdio" && ref.prelude !== undefined && language !== "python") {
        return unscorable("invalid_reference", { error: "prelude needs language: python" });
      }
      const program = extractProgram(completion, language, o.extract);
      if (program === undefined) return unscorable("no_answer", { expected: `a fenced ${language} code block` });
      // A host that cannot run even a trivial program scores nothing: one cached answer, not a slow failing run each.
      const broken = await hostProblem(o, backend, language, ref.kind, limits);
      if (broken !== undefined)
        return unscorable("sandbox_error", { error: broken, sandbox: backend.name, selfTest: "failed" });
      const run = await backend.run(language, harnessTask(ref, program), limits);
      if (run.sandboxError !== undefined) {
        const stderr = run.stderr.trim().slice(-500);
        return unscorable("sandbox_error", {
          error: run.sandboxError,
          sandbox: backend.name,
          ...(stderr ? { stderr } : {}),
        });
      }
      const faulty = brokenReference(run.statuses, run.messages);
      if (faulty) return unscorable("invalid_reference", { ...faulty, sandbox: backend.name });
      const counts: Partial<Record<TestStatus, number>> = {};
      for (const s of run.statuses) counts[s] = (counts[s] ?? 0) + 1;
      const n = run.statuses.length;
      const passed = counts.pass ?? 0;
      const w = o.score === "weighted" ? weightsOf(ref, n) : undefined;
      const score = scoreTests(run.statuses, o.score, w?.weights, o.denseScale);
      const details: Record<string, unknown> = {
        language,
        kind: ref.kind,
        tests: n,
        passed,
        statuses: Object.fromEntries(TEST_STATUSES.filter((s) => counts[s]).map((s) => [s, counts[s]])),
        // One character per test ("1" pass, "0" not): the per-test statistics VeRPO weights are estimated from.
        passMask: run.statuses.map((s) => (s === "pass" ? "1" : "0")).join(""),
        sandbox: backend.name,
        wallMs: Math.round(run.wallMs),
      };
      if (passed < n) {
        details.failures = [...run.messages.entries()]
          .slice(0, KEEP_FAILURES)
          .map(([test, message]) => ({ test, status: run.statuses[test], message }));
        if (run.endedBy) details.endedBy = run.endedBy;
      }
      if (w) details.weights = w.source;
      if (n === 0) return unscorable("invalid_reference", { ...details, error: "the reference holds no tests" });
      return passed === n ? ok(score, undefined, details) : ok(score, "tests_failed", details);
    };
  },
  async health(o, sample) {
    // References may name their own language; the component's is the one it is declared for.
    const backend = makeBackend(o, false);
    const limits = limitsOf(o);
    const problems = await Promise.all(TASK_KINDS.map((k) => hostProblem(o, backend, o.language, k, limits)));
    const found = [...new Set(problems.filter((p) => p !== undefined))];
    if (found.length === 0 && sample !== undefined && sample.length > 0) {
      const imports = sampleImports(o, sample);
      const users = (m: string): string => {
        const ids = imports.get(m) ?? [];
        return `imported by ${ids.length} rollout${ids.length === 1 ? "" : "s"}: ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}`;
      };
      const p = await modulesProblem(o, backend, [...imports.keys()], limits, users);
      if (p !== undefined) found.push(p);
    }
    return found.length > 0 ? found.join("; ") : undefined;
  },
};

/**
 * Judge messages (never the program's: a worker cannot claim `sandbox_error`, python-judge.ts `CLAIMABLE`) that mean
 * the reference itself is broken, whatever the program does: test code that does not parse, an expected output that
 * does not decode. A correct program cannot pass such a reference, so it is `invalid_reference`, never a 0.
 */
const REFERENCE_FAULTS = /^(?:the test code does not parse|bad case): /;

/** The first test whose failure is the reference's own (see {@link REFERENCE_FAULTS}), or undefined. */
function brokenReference(
  statuses: readonly TestStatus[],
  messages: ReadonlyMap<number, string>,
): { error: string; test: number } | undefined {
  for (const [test, message] of messages)
    if (statuses[test] === "sandbox_error" && REFERENCE_FAULTS.test(message)) return { error: message, test };
  return undefined;
}
