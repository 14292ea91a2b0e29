// The environment code tasks expect (issue 30, part 2): the modules LeetCode's and the code-RL sets' judges provide
// (sortedcontainers, numpy: `npm run setup:code`), a user's own interpreter (`python:`, a venv bound read-only), and
// the checks that say which modules are missing (`modules:`, `rewardkit check --rollouts`). Needs bubblewrap and
// /usr/bin/python3 with the venv module; skips, saying why, without them.
import { spawnSync } from "node:child_process";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComponentResult } from "../src/core/types.js";
import { interpreterMounts } from "../src/sandbox/interpreter.js";
import { probeBwrap } from "../src/sandbox/local.js";
import { codeVerifier } from "../src/verifiers/code/index.js";
import { cli, tmp } from "./helpers.js";

const unavailable =
  (await probeBwrap()) ??
  (spawnSync("/usr/bin/python3", ["-c", "import venv, sortedcontainers, numpy"]).status === 0
    ? undefined
    : "/usr/bin/python3 lacks venv, sortedcontainers or numpy (npm run setup:code)");
if (unavailable) console.log(`code environment tests skipped: ${unavailable}`);

const UID_BASE = 300_000 + Math.floor(Math.random() * 100_000) * 64;

const SORTED = "from sortedcontainers import SortedList\ndef f(xs):\n    return list(SortedList(xs))\n";
const NUMPY = "import numpy as np\ndef f(xs):\n    return int(np.array(xs).sum())\n";
const rollout = (id: string, program: string, output: unknown) => ({
  id,
  group: id,
  completion: "```python\n" + program + "```",
  reference: { kind: "call", entryPoint: "f", cases: [{ input: [[3, 1, 2]], output }] },
});

async function score(options: Record<string, unknown>, program: string, output: unknown): Promise<ComponentResult> {
  const verify = codeVerifier.create(codeVerifier.options.parse({ uidBase: UID_BASE, ...options }));
  const r = rollout("x", program, output);
  return verify({ completion: r.completion, reference: r.reference, rollout: { ...r } });
}

describe("interpreterMounts", () => {
  it("binds nothing for /usr/bin/python3, the venv for a venv whose python links into /usr", () => {
    expect(interpreterMounts("/usr/bin/python3")).toEqual([]);
  });
});

describe.skipIf(unavailable !== undefined)("the environment code tasks expect", () => {
  let dir = "";
  let bare = ""; // a venv without the system's site-packages: no sortedcontainers, no numpy
  let full = ""; // a venv with them
  beforeAll(() => {
    dir = tmp();
    chmodSync(dir, 0o755); // the sandbox's slot uids must reach the venvs
    for (const [name, flags] of [
      ["bare", []],
      ["full", ["--system-site-packages"]],
    ] as const) {
      const r = spawnSync("/usr/bin/python3", ["-m", "venv", "--without-pip", ...flags, join(dir, name)]);
      expect(r.status, String(r.stderr)).toBe(0);
    }
    bare = join(dir, "bare/bin/python3");
    full = join(dir, "full/bin/python3");
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the default interpreter has sortedcontainers and numpy: correct solutions score 1", async () => {
    expect((await score({}, SORTED, [1, 2, 3])).score).toBe(1);
    expect((await score({}, NUMPY, 6)).score).toBe(1);
  });

  it("python: a venv runs judge and worker, bound read-only", async () => {
    expect(interpreterMounts(full)).toEqual([join(dir, "full")]);
    expect((await score({ python: full }, SORTED, [1, 2, 3])).score).toBe(1);
    const missing = await score({ python: bare }, SORTED, [1, 2, 3]);
    expect(missing).toMatchObject({ score: 0, status: "ok" });
    expect(JSON.stringify(missing.details)).toContain("No module named 'sortedcontainers'");
    // the program cannot change the interpreter's environment
    const write = `import os, sys\ndef f(xs):\n    try:\n        open(os.path.join(sys.prefix, 'pwned.py'), 'w')\n        return 'written'\n    except OSError:\n        return 'refused'\n`;
    expect((await score({ python: full }, write, "refused")).score).toBe(1);
  });

  it("modules: a declared module the interpreter lacks makes every verdict sandbox_error, never a 0", async () => {
    const r = await score({ python: bare, modules: ["sortedcontainers"] }, SORTED, [1, 2, 3]);
    expect(r).toMatchObject({ score: null, status: "unscorable", reason: "sandbox_error" });
    expect(String(r.details?.error)).toMatch(
      /lacks modules the tasks import: sortedcontainers \(declared in modules:\)/,
    );
    expect((await score({ python: full, modules: ["sortedcontainers", "numpy"] }, SORTED, [1, 2, 3])).score).toBe(1);
  });

  it("rewardkit check names the modules a task set imports that the sandbox lacks (exit 4), and passes where they are", () => {
    const rollouts = join(dir, "rollouts.jsonl");
    writeFileSync(
      rollouts,
      [rollout("a", SORTED, [1, 2, 3]), rollout("b", NUMPY, 6), rollout("c", "def f(xs):\n    return 6\n", 6)]
        .map((r) => JSON.stringify(r))
        .join("\n") + "\n",
    );
    const spec = (python: string): string => {
      const p = join(dir, `${python.split("/").at(-3)}.yaml`);
      writeFileSync(
        p,
        `name: env\ncomponents:\n  - name: tests\n    type: code\n    python: ${python}\n    uidBase: ${UID_BASE}\n`,
      );
      return p;
    };
    const bad = cli(["check", spec(bare), "--rollouts", rollouts]);
    expect(bad.code, bad.stderr).toBe(4);
    expect(bad.stderr).toContain("numpy (imported by 1 rollout: b), sortedcontainers (imported by 1 rollout: a)");
    const good = cli(["check", spec(full), "--rollouts", rollouts]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/host: ok .*the modules 3 rollouts import are there/);
  }, 120_000);
});
