/**
 * Soak of the reward server's hardening (`npm run soak:server`; not part of `npm test`). Two phases, one table:
 *
 * A. Uploads: a server at `--max-queue 4` gets UPLOADS (20) concurrent 28 MB bodies. The body admission must
 *    refuse the ones that do not fit before reading them (429 at once), so the server's peak RSS (VmHWM from
 *    /proc) stays under 400 MB instead of growing with the number of uploads.
 * B. Saturation for SOAK_SECONDS (60): VALID clients loop valid batches (ids unique over the run; a 429 is
 *    retried after min(Retry-After, 0.2 s)), and MIXED clients loop malformed and hostile requests, each with the
 *    status it must get: malformed JSON (400), text/plain (415), a foreign Origin (403), a foreign Host (403), a
 *    body over --max-body-mb by Content-Length (413) and chunked (413), a rollout nested 100 000 levels deep next
 *    to a good one (200, its own error entry), group ids above 2^53 (200, two groups), and a client that goes
 *    away mid-body (counted in rewardkit_client_aborted_total). Server RSS is sampled each second.
 *
 * Exits 1 unless: every valid id answered exactly once (0 lost, 0 duplicated), every mixed request got its
 * status, no 5xx at all, the client aborts were counted as such, phase A's peak RSS < 400 MB and phase B's peak
 * RSS < RSS_BOUND_MB (default 700 MB: the verdict cache, V8's heap and the worker threads at their working size).
 *
 * Options (environment): SOAK_SECONDS, UPLOADS, UPLOAD_MB, VALID, MIXED, RSS_BOUND_MB.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { mathRows, startServer, tag } from "./server-common.mjs";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const UPLOADS = Number(process.env.UPLOADS ?? 20);
const UPLOAD_MB = Number(process.env.UPLOAD_MB ?? 28);
const VALID = Number(process.env.VALID ?? 12);
const MIXED = Number(process.env.MIXED ?? 4);
const RSS_BOUND_MB = Number(process.env.RSS_BOUND_MB ?? 700);
const UPLOAD_BOUND_MB = 400;
const SPEC = "examples/math.yaml";

const mb = (bytes) => Math.round(bytes / 1048576);
/** Resident set size and its peak (VmRSS, VmHWM) of a process, bytes. */
function memOf(pid) {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

/** One request; never rejects: a connection error is status 0. */
function send(agent, port, { method = "POST", path = "/v1/score", headers = {}, body }) {
  return new Promise((resolve) => {
    const h = { ...headers };
    if (body !== undefined && h["content-length"] === undefined && h["transfer-encoding"] === undefined)
      h["content-length"] = Buffer.byteLength(body);
    const req = http.request({ host: "127.0.0.1", port, method, path, agent, headers: h }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
      res.on("error", () => resolve({ status: 0, text: "" }));
    });
    req.on("error", (e) => resolve({ status: 0, text: String(e.code ?? e.message) }));
    // a body still being written when the server has answered and closed (an early 413/429) fails with EPIPE
    // on the socket after the request let go of it
    req.on("socket", (sock) => {
      if (!sock.soakGuard) sock.on("error", () => {});
      sock.soakGuard = true;
    });
    req.end(body);
  });
}

async function stop(child) {
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  return exited;
}

// ---------------------------------------------------------------- phase A: concurrent big uploads
async function uploads() {
  const { child, port } = await startServer(SPEC, ["--max-queue", "4", "-j", "1"]);
  const agent = new http.Agent({ keepAlive: false, maxSockets: UPLOADS + 2 });
  const pad = "x".repeat(UPLOAD_MB * 1048576 - 200);
  const statuses = {};
  const bodies = Array.from({ length: UPLOADS }, (_, i) =>
    JSON.stringify({
      rollouts: [{ id: `u${i}`, group: "g", completion: "\\boxed{1}", reference: "1", metadata: { pad } }],
    }),
  );
  const before = memOf(child.pid);
  const res = await Promise.all(
    bodies.map((body) => send(agent, port, { headers: { "content-type": "application/json" }, body })),
  );
  for (const r of res) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const after = memOf(child.pid);
  await stop(child);
  return { statuses, baseline: before.rss, peak: after.hwm };
}

// ---------------------------------------------------------------- phase B: saturation with mixed traffic
async function soak() {
  const { child, port } = await startServer(SPEC, [
    "--max-queue",
    "128",
    "--max-rollouts",
    "64",
    "--max-body-mb",
    "1",
    "-j",
    "2",
  ]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: VALID + MIXED + 4 });
  const rows = mathRows();
  const J = { "content-type": "application/json" };
  const end = Date.now() + SECONDS * 1000;
  const sent = new Set();
  const answered = new Map();
  const stats = { validRequests: 0, valid200: 0, valid429: 0, otherValid: {}, idMismatch: 0 };
  const mixed = {}; // kind -> { n, ok, got: {status: n} }
  const fivexx = { count: 0 };
  let next = 0;
  let rssPeak = 0;
  const rss = [];
  const sampler = setInterval(() => {
    try {
      const m = memOf(child.pid);
      rss.push(m.rss);
      rssPeak = Math.max(rssPeak, m.rss);
    } catch {
      // the process is gone
    }
  }, 1000);

  async function validClient(c) {
    while (Date.now() < end) {
      const n = 8 + ((c + next) % 25);
      const ids = [];
      const rollouts = [];
      for (let k = 0; k < n; k++) {
        const i = next++;
        const r = rows[i % rows.length];
        const id = `v${i}`;
        ids.push(id);
        rollouts.push({
          id,
          group: `${r.group}-${Math.floor(i / 8)}`,
          prompt: r.prompt,
          completion: `${r.completion}\n${tag(i)}`,
          reference: r.reference,
        });
      }
      const body = JSON.stringify({ rollouts });
      for (;;) {
        stats.validRequests++;
        const r = await send(agent, port, { headers: J, body });
        if (r.status >= 500) fivexx.count++;
        if (r.status === 429) {
          stats.valid429++;
          await new Promise((res) => setTimeout(res, Math.min(200, 1000 * Number(r.headers["retry-after"] ?? 1))));
          if (Date.now() > end + 20_000) break;
          continue;
        }
        if (r.status !== 200) {
          stats.otherValid[r.status] = (stats.otherValid[r.status] ?? 0) + 1;
          break;
        }
        stats.valid200++;
        for (const id of ids) sent.add(id);
        const got = JSON.parse(r.text).results.map((x) => x.id);
        if (got.length !== ids.length || got.some((id, k) => id !== ids[k])) stats.idMismatch++;
        for (const id of got) answered.set(id, (answered.get(id) ?? 0) + 1);
        break;
      }
    }
  }

  const deep = 100_000;
  const deepBody = `{"rollouts":[{"id":"ok","group":"g","completion":"\\\\boxed{42}","reference":"42"},{"id":"deep","completion":"x","prompt":${'{"a":'.repeat(deep)}1${"}".repeat(deep)}}]}`;
  const big =
    '{"rollouts":[{"id":"a1","group":9007199254740993,"completion":"\\\\boxed{1}","reference":"1"},{"id":"a2","group":9007199254740993,"completion":"\\\\boxed{2}","reference":"1"},' +
    '{"id":"b1","group":9007199254740992,"completion":"\\\\boxed{1}","reference":"1"},{"id":"b2","group":9007199254740992,"completion":"\\\\boxed{1}","reference":"1"}]}';
  const good = JSON.stringify({ rollouts: [{ id: "m", group: "g", completion: "\\boxed{42}", reference: "42" }] });
  /** kind → [request, expected status, extra check on the answer] */
  const kinds = {
    "malformed JSON": [{ headers: J, body: '{"rollouts": [' }, 400],
    "text/plain body": [{ headers: { "content-type": "text/plain" }, body: good }, 415],
    "foreign Origin": [{ headers: { ...J, origin: "http://evil.example" }, body: good }, 403],
    "foreign Host": [{ headers: { ...J, host: `evil.example:${port}` }, body: good }, 403],
    "oversized (Content-Length)": [
      { headers: J, body: JSON.stringify({ rollouts: [{ id: "o", group: "g", completion: "y".repeat(1_100_000) }] }) },
      413,
    ],
    "oversized (chunked)": [
      {
        headers: { ...J, "transfer-encoding": "chunked" },
        body: JSON.stringify({ rollouts: [{ id: "o", group: "g", completion: "z".repeat(1_100_000) }] }),
      },
      413,
    ],
    "nested 100 000 deep": [
      { headers: J, body: deepBody },
      200,
      (t) => {
        const r = JSON.parse(t).results;
        return r[0].reward === 1 && !!r[1].error;
      },
    ],
    "group ids > 2^53": [
      { headers: J, body: big },
      200,
      (t) => {
        const r = JSON.parse(t).results;
        return r[0].advantage > 0 && r[1].advantage < 0 && r[2].advantage === 0;
      },
    ],
  };
  let aborts = 0;
  async function abortMidBody() {
    await new Promise((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.write(
          `POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"rollouts": [` +
            " ".repeat(2000),
        );
        setTimeout(() => {
          s.destroy();
          aborts++;
          resolve();
        }, 50);
      });
      s.on("error", resolve);
    });
  }
  async function mixedClient(c) {
    const names = [...Object.keys(kinds), "client gone mid-body"];
    let k = c;
    while (Date.now() < end) {
      const name = names[k++ % names.length];
      const m = (mixed[name] ??= { n: 0, ok: 0, got: {} });
      m.n++;
      if (name === "client gone mid-body") {
        await abortMidBody();
        m.ok++;
        m.got.gone = (m.got.gone ?? 0) + 1;
        continue;
      }
      const [req, want, check] = kinds[name];
      let r = await send(agent, port, req);
      while (r.status === 429 && Date.now() < end + 20_000) {
        await new Promise((res) => setTimeout(res, 200));
        r = await send(agent, port, req);
      }
      if (r.status >= 500) fivexx.count++;
      m.got[r.status] = (m.got[r.status] ?? 0) + 1;
      if (r.status === want && (!check || check(r.text))) m.ok++;
    }
  }

  await Promise.all([
    ...Array.from({ length: VALID }, (_, c) => validClient(c)),
    ...Array.from({ length: MIXED }, (_, c) => mixedClient(c)),
  ]);
  clearInterval(sampler);
  const metrics = (await send(agent, port, { method: "GET", path: "/metrics" })).text;
  const counted = [...metrics.matchAll(/^rewardkit_client_aborted_total\{[^}]*phase="body"[^}]*\} (\d+)$/gm)].reduce(
    (s, x) => s + Number(x[1]),
    0,
  );
  const server5xx = [...metrics.matchAll(/^rewardkit_requests_total\{[^}]*code="5\d\d"\} (\d+)$/gm)].reduce(
    (s, x) => s + Number(x[1]),
    0,
  );
  agent.destroy();
  const code = await stop(child);
  let lost = 0;
  let dup = 0;
  for (const id of sent) {
    const n = answered.get(id) ?? 0;
    if (n === 0) lost++;
    if (n > 1) dup++;
  }
  for (const [id, n] of answered) if (!sent.has(id) && n > 0) dup++;
  return {
    stats,
    mixed,
    sentCount: sent.size,
    lost,
    dup,
    fivexx: fivexx.count,
    server5xx,
    aborts,
    counted,
    rssPeak,
    rssLast: rss.at(-1) ?? 0,
    rss,
    exit: code,
  };
}

console.error("soak: phase A (uploads)");
const A = await uploads();
console.error(`soak: phase A done: ${JSON.stringify(A)}`);
const B = await soak();

const rows = [];
const row = (what, value, ok) => rows.push([what, String(value), ok ? "ok" : "FAIL"]);
const up200 = A.statuses[200] ?? 0;
row(
  `A: ${UPLOADS} concurrent ${UPLOAD_MB} MB uploads, --max-queue 4: answers`,
  Object.entries(A.statuses)
    .map(([s, n]) => `${n}×${s}`)
    .join(" "),
  up200 >= 1 && up200 + (A.statuses[429] ?? 0) === UPLOADS,
);
row(
  "A: server RSS before → peak (VmHWM)",
  `${mb(A.baseline)} → ${mb(A.peak)} MB (bound ${UPLOAD_BOUND_MB})`,
  A.peak < UPLOAD_BOUND_MB * 1048576,
);
row(
  `B: ${SECONDS} s, ${VALID} valid clients: requests (200 / 429)`,
  `${B.stats.validRequests} (${B.stats.valid200} / ${B.stats.valid429})`,
  Object.keys(B.stats.otherValid).length === 0,
);
row("B: valid rollouts answered (in 200 answers)", B.sentCount, B.sentCount > 0);
row(
  "B: ids lost / duplicated / answers with other ids",
  `${B.lost} / ${B.dup} / ${B.stats.idMismatch}`,
  B.lost === 0 && B.dup === 0 && B.stats.idMismatch === 0,
);
for (const [name, m] of Object.entries(B.mixed))
  row(
    `B: ${name}: as expected`,
    `${m.ok}/${m.n} (${Object.entries(m.got)
      .map(([s, n]) => `${n}×${s}`)
      .join(" ")})`,
    m.ok === m.n && m.n > 0,
  );
row(
  "B: client aborts counted as such (rewardkit_client_aborted_total, phase body)",
  `${B.counted} of ${B.aborts}`,
  B.counted >= 1 && B.counted <= B.aborts,
);
row(
  "B: 5xx answers (seen by clients / in /metrics)",
  `${B.fivexx} / ${B.server5xx}`,
  B.fivexx === 0 && B.server5xx === 0,
);
row(
  "B: server RSS peak / last",
  `${mb(B.rssPeak)} / ${mb(B.rssLast)} MB (bound ${RSS_BOUND_MB})`,
  B.rssPeak < RSS_BOUND_MB * 1048576,
);
row("B: server exit after SIGTERM", B.exit, B.exit === 0);

const w = [0, 1, 2].map((k) => Math.max(...rows.map((r) => r[k].length), ["check", "value", ""][k].length));
const line = (r) => `| ${r.map((x, k) => x.padEnd(w[k])).join(" | ")} |`;
console.log(line(["check", "value", ""]));
console.log(`|${w.map((n) => "-".repeat(n + 2)).join("|")}|`);
for (const r of rows) console.log(line(r));
console.log(`RSS each second in B (MB): ${B.rss.map(mb).join(" ")}`);
const failed = rows.filter((r) => r[2] !== "ok").length;
console.log(failed === 0 ? "soak: all checks hold" : `soak: ${failed} check(s) failed`);
process.exit(failed === 0 ? 0 : 1);
