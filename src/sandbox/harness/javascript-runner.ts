import { JAVASCRIPT_WIRE } from "./javascript-wire.js";

/**
 * The JavaScript worker (`node -e`, started by the judge on descriptors 3 and 4): loads the program in a `node:vm`
 * context (per-call timeouts stop synchronous loops) and answers the judge's calls with tagged JSON values. It is
 * the program's own process: nothing in it is trusted, and it holds no expected output.
 */
export const JAVASCRIPT_RUNNER = String.raw`"use strict";
// rewardkit JavaScript worker: the program's own process (untrusted once the program runs). It reads requests
// from fd 3 and writes replies to fd 4 (newline-delimited JSON), and never holds a test's expected output: the
// judge compares.
${JAVASCRIPT_WIRE}const vm = require("vm");
const { createRequire } = require("module");
const kind = (v) => Object.prototype.toString.call(v);
function enc(v, depth) {
  if (depth > 400) throw new Error("a value nested deeper than 400");
  if (v === null) return null;
  switch (typeof v) {
    case "undefined": return { $undefined: true };
    case "boolean": case "string": return v;
    case "number":
      if (Number.isNaN(v)) return { $float: "nan" };
      if (!Number.isFinite(v)) return { $float: v > 0 ? "inf" : "-inf" };
      return v;
    case "bigint": return { $int: v.toString() };
    case "object": {
      const d = depth + 1;
      if (Array.isArray(v)) return Array.from(v, (x) => enc(x, d));
      const k = kind(v);
      if (k === "[object Set]") return { $set: Array.from(v, (x) => enc(x, d)) };
      if (k === "[object Map]") return { $dict: Array.from(v, ([a, b]) => [enc(a, d), enc(b, d)]) };
      if (k === "[object Object]") return { $dict: Object.keys(v).map((key) => [key, enc(v[key], d)]) };
      throw new Error("a value of kind " + k + " has no literal form");
    }
    default: throw new Error("a " + typeof v + " has no literal form");
  }
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
      if (keys[0] === "$int") return BigInt(x);
      if (keys[0] === "$dict") return Object.fromEntries(x.map(([a, b]) => [decode(a), decode(b)]));
      if (keys[0] === "$undefined") return undefined;
    }
    const o = {};
    for (const k of keys) o[k] = decode(v[k]);
    return o;
  }
  return v;
}
function classify(e) {
  const msg = e && e.message ? String(e.message) : String(e);
  if (e && e.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return { s: "timeout" };
  if (e instanceof RangeError && /allocation failed|Invalid (array|string) length|out of memory/i.test(msg)) return { s: "memory_limit", m: msg };
  return { s: "runtime_error", m: ((e && e.name ? e.name + ": " : "") + msg).slice(0, 300) };
}
send({ op: "armed" }); // start-up done, before the judge sends anything of the task (python-judge.ts: await_armed)
const init = recv();
if (!init) process.exit(0);
const testMs = init.testMs;
// The judge limits the CPU time of this process per test (it kills and replaces it); vm timeouts are wall-clock
// time, so they are only the backstop for a loop the judge has not stopped yet.
const wallMs = Math.max(10 * testMs, testMs + 2000);
const quiet = () => {};
const context = vm.createContext({
  console: { log: quiet, error: quiet, warn: quiet, info: quiet, debug: quiet, trace: quiet },
  require: createRequire(process.cwd() + "/solution.js"),
  module: { exports: {} },
  setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, queueMicrotask, Buffer,
});
context.exports = context.module.exports;
const run = (src) => new vm.Script(src, { filename: "solution.js" }).runInContext(context, { timeout: wallMs });
async function settle(v, ms) {
  if (!v || typeof v.then !== "function") return v;
  let timer;
  const limit = new Promise((_, rej) => { timer = setTimeout(() => rej(Object.assign(new Error("timeout"), { code: "ERR_SCRIPT_EXECUTION_TIMEOUT" })), ms); });
  try { return await Promise.race([v, limit]); } finally { clearTimeout(timer); }
}
function reply(rep, v) {
  try {
    rep.v = enc(v, 0);
  } catch (e) {
    rep.s = "fail";
    rep.m = "returned " + (e && e.message) + " (only literal values are compared)";
  }
  return rep;
}
async function main() {
  try {
    new vm.Script(init.program, { filename: "solution.js" });
  } catch (e) {
    return send({ op: "loaded", s: "compile_error", m: String(e).slice(0, 300) });
  }
  try {
    run(init.program);
  } catch (e) {
    const c = classify(e);
    return send({ op: "loaded", s: c.s, m: c.m });
  }
  let fn = null;
  const name = init.entryPoint;
  if (name && /^[A-Za-z_$][\w$]*$/.test(name)) {
    fn = run("typeof " + name + " === 'function' ? " + name + " : (typeof module.exports === 'function' ? module.exports : module.exports[" + JSON.stringify(name) + "])");
  }
  send({ op: "loaded", entry: typeof fn === "function" });
  context.__rk_fn = fn;
  for (;;) {
    const msg = recv();
    if (!msg) return;
    if (msg.op === "cases") {
      for (let i = 0; i < msg.cases.length; i++) {
        let rep;
        try {
          context.__rk_args = decode(msg.cases[i]);
          const got = await settle(run("__rk_fn(...__rk_args)"), wallMs);
          rep = reply({ i }, msg.truthy ? Boolean(got) : got);
        } catch (e) {
          rep = Object.assign({ i }, classify(e));
        }
        send(rep);
      }
    } else if (msg.op === "call") {
      let rep;
      try {
        context.__rk_args = (msg.args || []).map(decode);
        rep = reply({ id: msg.id }, await settle(run("__rk_fn(...__rk_args)"), wallMs));
      } catch (e) {
        const c = classify(e);
        rep = c.s === "runtime_error" ? { id: msg.id, err: e && e.name ? String(e.name) : "Error", m: c.m } : Object.assign({ id: msg.id }, c);
      }
      send(rep);
    }
  }
}
main().then(() => process.exit(0), () => process.exit(1));
`;
