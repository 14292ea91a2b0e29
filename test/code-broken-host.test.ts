// Infrastructure failures are never a 0 (issue 32, part 4): on a host whose null device is a plain file (a private
// mount namespace with /dev/null bind-mounted from an empty regular file), the sandbox's workers cannot start, and
// every code verdict must be unscorable with reason sandbox_error, not a scored 0 with tests_failed; `rewardkit
// check` exits 4 and `/readyz` answers 503 with the reason. Skipped where `unshare -m` cannot run (not root, no
// mount namespaces).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { probeBwrap } from "../src/sandbox/local.js";
import { readJsonl, ROOT, tmp } from "./helpers.js";

const canUnshare = spawnSync("unshare", ["-m", "true"]).status === 0;
if (!canUnshare)
  console.log("broken-host tests skipped: `unshare -m` cannot run here (needs root and mount namespaces)");
const bwrapMissing = await probeBwrap();

const dir = tmp();
const fakeNull = join(dir, "fakenull");
writeFileSync(fakeNull, "");
chmodSync(fakeNull, 0o644);

/** `node bin/rewardkit.js args…` in a private mount namespace whose /dev/null is the plain file `fakeNull`. */
const brokenHostArgv = (args: string[]): string[] => [
  "unshare",
  "-m",
  "bash",
  "-c",
  `mount --bind "$0" /dev/null && exec "$@"`,
  fakeNull,
  process.execPath,
  join(ROOT, "bin/rewardkit.js"),
  ...args,
];

function onBrokenHost(args: string[]): { code: number; stdout: string; stderr: string } {
  const [exe, ...rest] = brokenHostArgv(args);
  const r = spawnSync(exe!, rest, { cwd: ROOT, encoding: "utf8", env: { ...process.env, CI: "1" }, timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function spec(name: string, language: string, sandbox: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `name: ${name}\ncomponents:\n  - {name: tests, type: code, language: ${language}, sandbox: ${sandbox}}\n`,
  );
  return path;
}

// three canonical HumanEval solutions (Python assert tests)
const humaneval = join(dir, "humaneval.jsonl");
writeFileSync(
  humaneval,
  readFileSync(join(ROOT, "examples/data/humaneval.jsonl"), "utf8").split("\n").slice(0, 3).join("\n") + "\n",
);
// three correct JavaScript programs, one per reference kind
const js = join(dir, "javascript.jsonl");
const fence = (code: string): string => "```javascript\n" + code + "\n```";
writeFileSync(
  js,
  [
    {
      id: "js-call",
      prompt: "add",
      completion: fence("function add(a, b) { return a + b; }"),
      reference: { kind: "call", entryPoint: "add", cases: [{ input: [1, 2], output: 3 }] },
    },
    {
      id: "js-assert",
      prompt: "add",
      completion: fence("function add(a, b) { return a + b; }"),
      reference: {
        kind: "assert",
        entryPoint: "add",
        test: "function check(candidate) { console.assert(candidate(1, 2) === 3); }",
      },
    },
    {
      id: "js-stdio",
      prompt: "add",
      completion: fence(
        'const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(Number);\nconsole.log(a + b);',
      ),
      reference: { kind: "stdio", cases: [{ stdin: "3 4\n", stdout: "7\n" }] },
    },
  ]
    .map((r) => JSON.stringify(r))
    .join("\n") + "\n",
);

interface Row {
  id: string;
  components: { tests: { score: number | null; status: string; reason?: string; details?: { error?: string } } };
}

const cases = [
  { name: "python-none", language: "python", sandbox: "none", data: humaneval },
  { name: "python-bwrap", language: "python", sandbox: "bwrap", data: humaneval },
  { name: "javascript-none", language: "javascript", sandbox: "none", data: js },
  { name: "javascript-bwrap", language: "javascript", sandbox: "bwrap", data: js },
];

describe.skipIf(!canUnshare)("a host whose /dev/null is a plain file: sandbox_error, never a scored 0", () => {
  for (const c of cases) {
    const skip = c.sandbox === "bwrap" && bwrapMissing !== undefined;
    it.skipIf(skip)(
      `rewardkit score, ${c.language}, sandbox: ${c.sandbox}`,
      () => {
        const out = join(dir, `${c.name}.out.jsonl`);
        const r = onBrokenHost(["score", c.data, "--spec", spec(c.name, c.language, c.sandbox), "-o", out]);
        expect(r.code, r.stderr).toBe(0);
        const rows = readJsonl<Row>(out);
        expect(rows).toHaveLength(3);
        for (const row of rows) {
          expect({ score: row.components.tests.score, reason: row.components.tests.reason }).toEqual({
            score: null,
            reason: "sandbox_error",
          });
          expect(row.components.tests.status).toBe("unscorable");
          // the worker's own words reach the details
          expect(row.components.tests.details?.error).toMatch(/did not start \(exit 121\).*\/dev\/null/);
        }
      },
      180_000,
    );
  }

  it("the same rows score 1 on this host as it is (the broken null device is the only difference)", () => {
    const out = join(dir, "healthy.out.jsonl");
    const r = spawnSync(
      process.execPath,
      [join(ROOT, "bin/rewardkit.js"), "score", humaneval, "--spec", spec("healthy", "python", "none"), "-o", out],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(readJsonl<Row>(out).map((row) => row.components.tests.score)).toEqual([1, 1, 1]);
    const jsOut = join(dir, "healthy-js.out.jsonl");
    const j = spawnSync(
      process.execPath,
      [join(ROOT, "bin/rewardkit.js"), "score", js, "--spec", spec("healthy-js", "javascript", "none"), "-o", jsOut],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(j.status, j.stderr).toBe(0);
    expect(readJsonl<Row>(jsOut).map((row) => row.components.tests.score)).toEqual([1, 1, 1]);
  }, 120_000);

  it("rewardkit check reports the broken host (exit 4, the self-test's reason); --no-host-check skips it", () => {
    const s = spec("check", "python", "none");
    const r = onBrokenHost(["check", s]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/this host cannot run the spec/);
    expect(r.stderr).toMatch(/tests \(code\): sandbox self-test \(none, python (assert|call|stdio).*\/dev\/null/);
    expect(onBrokenHost(["check", s, "--no-host-check"]).code).toBe(0);
  }, 120_000);

  const servers: Array<() => void> = [];
  afterAll(() => servers.forEach((stop) => stop()));

  it("serve: GET /readyz answers 503 host_broken with the reason (while /healthz stays 200)", async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const [exe, ...rest] = brokenHostArgv(["serve", "--spec", spec("serve", "python", "none"), "--port", String(port)]);
    const child = spawn(exe!, rest, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], detached: true });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    servers.push(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone
      }
    });
    const url = `http://127.0.0.1:${port}`;
    let health: Response | undefined;
    for (let i = 0; i < 200 && !health; i++) {
      health = await fetch(`${url}/healthz`).catch(() => undefined);
      if (!health) await new Promise((r) => setTimeout(r, 100));
    }
    expect(health?.status, stderr).toBe(200);
    let ready: Response | undefined;
    let body: { status?: string; reason?: string; problems?: unknown[] } = {};
    for (let i = 0; i < 60; i++) {
      ready = await fetch(`${url}/readyz`);
      body = (await ready.json()) as typeof body;
      if (body.status !== "starting") break;
    }
    expect(ready?.status).toBe(503);
    expect(body.status).toBe("host_broken");
    expect(body.reason).toMatch(/^tests: sandbox self-test .*did not start \(exit 121\).*\/dev\/null/);
    expect(body.problems).toHaveLength(1);
    expect(stderr).toMatch(/warning: this host cannot run component tests \(code\)/);
  }, 120_000);
});
