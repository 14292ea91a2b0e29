import { JAVASCRIPT_WIRE } from "./javascript-wire.js";

/**
 * The JavaScript test runner for `assert` references (`node -e`, trusted): runs the reference's test code in a
 * `node:vm` context where the entry point is a proxy; each call goes through the judge to the program's process
 * and comes back as plain JSON, rebuilt inside the test's realm. `console.assert` throws here.
 */
export const JAVASCRIPT_CHECK = String.raw`"use strict";
// rewardkit JavaScript test runner (trusted): runs a reference's test code; the entry point is a proxy whose
// calls go through the judge to the program's own process. Requests on fd 4, replies on fd 3.
${JAVASCRIPT_WIRE}const vm = require("vm");
const { createRequire } = require("module");
send({ op: "armed" }); // start-up done, before the judge sends anything of the task (python-judge.ts: await_armed)
const init = recv();
const testMs = init.testMs;
// Wall-clock backstop only: the judge limits the program's CPU time per call.
const wallMs = Math.max(10 * testMs, testMs + 2000);
const quiet = () => {};
class AssertionError extends Error {}
AssertionError.prototype.name = "AssertionError";
const context = vm.createContext({
  console: { log: quiet, error: quiet, warn: quiet, info: quiet, debug: quiet, trace: quiet,
    assert: (ok, ...m) => { if (!ok) throw new AssertionError(m.length ? m.map(String).join(" ") : "console.assert"); } },
  require: createRequire("/sandbox/test.js"),
  setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, queueMicrotask,
});
// Values from the program are rebuilt inside the test's realm, from plain JSON: nothing of the program crosses.
function decodeIn(text) {
  function walk(v) {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      const k = Object.keys(v)[0], x = v[k];
      if (k === "$tuple") return x.map(walk);
      if (k === "$set") return new Set(x.map(walk));
      if (k === "$float") return x === "nan" ? NaN : x === "-inf" ? -Infinity : Infinity;
      if (k === "$int") return BigInt(x);
      if (k === "$undefined") return undefined;
      if (k === "$dict") { const o = {}; for (const [a, b] of x) o[walk(a)] = walk(b); return o; }
      throw new TypeError("unreadable value from the program");
    }
    return v;
  }
  return walk(JSON.parse(text));
}
vm.runInContext("globalThis.__rk_decode = " + decodeIn.toString(), context);
function enc(v, depth) {
  if (depth > 400) throw new TypeError("argument nested too deep");
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "undefined") return { $undefined: true };
  if (typeof v === "number") return Number.isNaN(v) ? { $float: "nan" } : Number.isFinite(v) ? v : { $float: v > 0 ? "inf" : "-inf" };
  if (typeof v === "bigint") return { $int: v.toString() };
  if (Array.isArray(v)) return Array.from(v, (x) => enc(x, depth + 1));
  const k = Object.prototype.toString.call(v);
  if (k === "[object Set]") return { $set: Array.from(v, (x) => enc(x, depth + 1)) };
  if (k === "[object Object]") return { $dict: Object.keys(v).map((key) => [key, enc(v[key], depth + 1)]) };
  throw new TypeError("the test passes a value the program's process cannot receive");
}
let seq = 0;
function candidate(...args) {
  const id = ++seq;
  send({ op: "call", id, args: args.map((a) => enc(a, 0)) });
  const r = recv();
  if (!r) throw new Error("the judge went away");
  if (r.s) throw Object.assign(new Error(r.m || r.s), { rkStatus: r.s });
  if (r.err) {
    const e = new Error(r.m || r.err);
    e.name = r.err;
    throw e;
  }
  return context.__rk_decode(JSON.stringify(r.v));
}
context[init.entryPoint] = candidate;
context.__rk_candidate = candidate;
function status(e) {
  if (e && e.rkStatus) return { s: e.rkStatus, m: e.message };
  if (e && e.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return { s: "timeout", m: "time limit " + testMs + " ms" };
  if (e && e.name === "AssertionError") return { s: "fail", m: String(e.message).slice(0, 300) };
  return { s: "runtime_error", m: ((e && e.name ? e.name + ": " : "") + (e && e.message ? e.message : String(e))).slice(0, 300) };
}
async function main() {
  const opts = { timeout: wallMs, filename: "test.js" };
  let v = vm.runInContext(init.test, context, opts);
  if (v && typeof v.then === "function") v = await v;
  if (vm.runInContext("typeof check === 'function'", context)) {
    v = vm.runInContext("check(__rk_candidate)", context, opts);
    if (v && typeof v.then === "function") await v;
  }
}
main().then(() => send({ op: "result", s: "pass" }), (e) => send(Object.assign({ op: "result" }, status(e)))).finally(() => process.exit(0));
`;
