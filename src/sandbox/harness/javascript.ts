/**
 * The JavaScript test harness, run inside the sandbox as `node harness.mjs task.json`. Same protocol and statuses
 * as the Python harness (see `python.ts`). The program runs as a classic script in a `node:vm` context (per-test
 * `timeout` stops synchronous loops); `require` is available, `import` is not. `stdio` cases run the program as a
 * child `node` process per case. Kept as a string so `tsc` ships it; it must not contain a backtick.
 */
export const JAVASCRIPT_HARNESS = String.raw`
import { readFileSync, writeFileSync, writeSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import vm from "node:vm";

const EMBEDDED = "";
const task = JSON.parse(process.argv[2] ? readFileSync(process.argv[2], "utf8") : Buffer.from(EMBEDDED, "base64").toString("utf8"));
const testMs = task.testTimeoutMs ?? 2000;
const cap = task.outputLimit ?? 1 << 20;

function emit(obj) {
  const b = Buffer.from(task.nonce + " " + JSON.stringify(obj) + "\n", "utf8");
  let off = 0;
  while (off < b.length) off += writeSync(1, b, off);
}
function report(i, s, m) {
  const rec = { t: i, s };
  if (m) rec.m = String(m).slice(0, 300);
  emit(rec);
}
function failAll(n, s, m) {
  for (let i = 0; i < n; i++) report(i, s, m);
}
function decode(v) {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === "object") {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0].startsWith("$")) {
      const x = v[keys[0]];
      if (keys[0] === "$tuple") return x.map(decode);
      if (keys[0] === "$set") return new Set(x.map(decode));
      if (keys[0] === "$float") return Number(x === "nan" ? NaN : x === "-inf" ? -Infinity : x === "inf" ? Infinity : x);
    }
    const o = {};
    for (const k of keys) o[k] = decode(v[k]);
    return o;
  }
  return v;
}
function same(a, b, atol) {
  if (typeof a === "number" && typeof b === "number") {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    if (a === b) return true; // also Infinity === Infinity, where the difference is NaN
    if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
    return atol > 0 && Math.abs(a - b) <= atol + 1e-7 * Math.abs(b);
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i], atol));
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => b.has(x));
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && kb.every((k) => Object.prototype.hasOwnProperty.call(a, k) && same(a[k], b[k], atol));
  }
  return a === b;
}
function classify(e) {
  const msg = e && e.message ? String(e.message) : String(e);
  if (e && e.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return ["timeout", "time limit " + testMs + " ms"];
  if (e instanceof RangeError && /allocation failed|Invalid (array|string) length|out of memory/i.test(msg)) return ["memory_limit", msg];
  if (e && e.name === "AssertionError") return ["fail", msg];
  return ["runtime_error", (e && e.name ? e.name + ": " : "") + msg];
}

const sink = { size: 0 };
const quiet = (...a) => { sink.size += a.join(" ").length; };
const context = vm.createContext({
  console: { log: quiet, error: quiet, warn: quiet, info: quiet, debug: quiet },
  require: createRequire("/sandbox/solution.js"),
  module: { exports: {} },
  setTimeout, clearTimeout, setInterval, clearInterval, Buffer,
});
context.exports = context.module.exports;
const run = (src) => new vm.Script(src, { filename: "solution.js" }).runInContext(context, { timeout: testMs });

function load(n) {
  try {
    new vm.Script(task.program, { filename: "solution.js" });
  } catch (e) {
    failAll(n, "compile_error", String(e));
    return null;
  }
  try {
    run(task.program);
  } catch (e) {
    failAll(n, ...classify(e).map((x, i) => (i === 0 && x === "fail" ? "runtime_error" : x)));
    return null;
  }
  const name = task.entryPoint;
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) {
    failAll(n, "sandbox_error", "bad entry point");
    return null;
  }
  const fn = run("typeof " + name + " === 'function' ? " + name + " : (typeof module.exports === 'function' ? module.exports : module.exports[" + JSON.stringify(name) + "])");
  if (typeof fn !== "function") {
    failAll(n, "runtime_error", "entry point " + name + " is not defined");
    return null;
  }
  return fn;
}

async function settle(v) {
  if (!v || typeof v.then !== "function") return v;
  let timer;
  const limit = new Promise((_, rej) => { timer = setTimeout(() => rej(Object.assign(new Error("timeout"), { code: "ERR_SCRIPT_EXECUTION_TIMEOUT" })), testMs); });
  try { return await Promise.race([v, limit]); } finally { clearTimeout(timer); }
}

async function runCall() {
  const cases = task.cases;
  const atol = Number(task.atol ?? 0);
  emit({ ready: cases.length });
  const fn = load(cases.length);
  if (!fn) return;
  context.__rk_fn = fn;
  for (let i = 0; i < cases.length; i++) {
    try {
      context.__rk_args = decode(cases[i].input);
      const got = await settle(run("__rk_fn(...__rk_args)"));
      const ok = same(got, decode(cases[i].output), atol);
      report(i, ok ? "pass" : "fail", ok ? undefined : "got " + JSON.stringify(got)?.slice(0, 120));
    } catch (e) {
      const [s, m] = classify(e);
      report(i, s === "fail" ? "runtime_error" : s, m);
    }
  }
}

async function runAssert() {
  emit({ ready: 1 });
  const fn = load(1);
  if (!fn) return;
  try {
    run(task.test);
    context.__rk_fn = fn;
    await settle(run("check(__rk_fn)"));
    report(0, "pass");
  } catch (e) {
    const [s, m] = classify(e);
    report(0, s, m);
  }
}

function normalize(t) {
  const lines = t.replace(/\r\n/g, "\n").split("\n").map((l) => l.trimEnd());
  while (lines.length && !lines[lines.length - 1]) lines.pop();
  return lines.join("\n");
}

function runStdio() {
  const cases = task.cases;
  emit({ ready: cases.length });
  try {
    new vm.Script(task.program, { filename: "solution.js" });
  } catch (e) {
    return failAll(cases.length, "compile_error", String(e));
  }
  writeFileSync("solution.js", task.program);
  for (let i = 0; i < cases.length; i++) {
    const r = spawnSync(process.execPath, ["solution.js"], { input: cases[i].stdin ?? "", timeout: testMs, killSignal: "SIGKILL", maxBuffer: cap, encoding: "utf8" });
    if (r.error && r.error.code === "ENOBUFS") report(i, "fail", "output over " + cap + " bytes");
    else if (r.error && r.error.code === "ETIMEDOUT") report(i, "timeout", "time limit " + testMs + " ms");
    else if (r.status !== 0) report(i, /heap out of memory/.test(r.stderr) ? "memory_limit" : "runtime_error", (r.stderr || "exit " + (r.status ?? r.signal)).slice(-300));
    else {
      const ok = normalize(r.stdout) === normalize(cases[i].stdout ?? "");
      report(i, ok ? "pass" : "fail", ok ? undefined : "stdout " + JSON.stringify(r.stdout.slice(0, 120)));
    }
  }
}

const kinds = { call: runCall, assert: runAssert, stdio: runStdio };
const go = kinds[task.kind];
if (!go) emit({ fatal: "unknown kind " + task.kind });
else await go();
emit({ done: true });
process.exit(0);
`;
