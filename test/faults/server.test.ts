/**
 * Fault injection, server side (`rewardkit serve`; red-team review 2, F4, F7, F9 and the low findings): CSRF and
 * DNS rebinding on a token-less loopback server, memory growing with concurrent uploads, a deep-nested rollout
 * failing its batch, clients that go away counted as 500s, group ids merged by rounding, an open non-loopback
 * bind, the token on the command line. Each case failed before the hardening.
 */
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../src/server/index.js";
import type { RunningServer } from "../../src/server/index.js";
import { loadSpec } from "../../src/spec/load.js";
import { ROOT, tmp } from "../helpers.js";

const J = { "content-type": "application/json" };
const hasPython = spawnSync("python3", ["--version"]).status === 0;
const GOOD = JSON.stringify({
  rollouts: [
    { id: "a", group: "g", completion: "\\boxed{42}", reference: "42" },
    { id: "b", group: "g", completion: "\\boxed{41}", reference: "42" },
  ],
});
const spec = () => loadSpec(join(ROOT, "examples/math.yaml"));

interface Result {
  id: string;
  reward: number | null;
  advantage: number | null;
  error?: { field: string; message: string };
}

async function post(
  base: string,
  body: string,
  headers: Record<string, string> = J,
  path = "/v1/score",
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(base + path, { method: "POST", headers, body });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A raw HTTP/1.1 exchange, so `Host` can be anything (fetch does not let a caller set it). @returns the status. */
function rawStatus(port: number, head: string, body = ""): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1", () => s.write(head + body));
    let got = "";
    s.on("data", (d: Buffer) => {
      got += d.toString();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (m) {
        s.destroy();
        resolve(Number(m[1]));
      }
    });
    s.on("error", reject);
  });
}

const metric = async (base: string, re: RegExp): Promise<number> => {
  const text = await (await fetch(`${base}/metrics`)).text();
  return [...text.matchAll(re)].reduce((s, m) => s + Number(m[1]), 0);
};

describe("token-less loopback server: nothing a web page can reach", () => {
  let srv: RunningServer;
  let base: string;
  beforeAll(async () => {
    srv = await startServer(spec(), { port: 0, concurrency: 1 });
    base = srv.url;
  });
  afterAll(async () => {
    await srv.shutdown();
  });

  it("a request without Origin works; any Origin (also null) gets 403 on every route", async () => {
    const ok = await post(base, GOOD);
    expect(ok.status).toBe(200);
    for (const origin of ["http://evil.example", "null", "https://127.0.0.1.evil.example", base]) {
      const r = await post(base, GOOD, { ...J, origin });
      expect(r.status, origin).toBe(403);
      expect((r.json.error as { code: string }).code).toBe("forbidden");
    }
    const orl = JSON.stringify({ query: ["What is 6*7? \\boxed{42}"], prompts: ["What is 6*7?"], labels: ["42"] });
    expect((await post(base, orl, { ...J, origin: "http://evil.example" }, "/get_reward")).status).toBe(403);
  });

  it("a Host that is not the bound address or a loopback name gets 403 (DNS rebinding)", async () => {
    const head = (host: string): string =>
      `POST /v1/score HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(GOOD)}\r\nConnection: close\r\n\r\n`;
    for (const host of [
      `evil.example:${srv.port}`,
      "evil.example",
      `attacker.test:${srv.port}`,
      "127.0.0.1.evil.example",
    ])
      expect(await rawStatus(srv.port, head(host), GOOD), host).toBe(403);
    for (const host of [`127.0.0.1:${srv.port}`, `localhost:${srv.port}`, "localhost", `[::1]:${srv.port}`])
      expect(await rawStatus(srv.port, head(host), GOOD), host).toBe(200);
  });

  it("bodies must be application/json: text/plain, form and multipart (what a page sends without a preflight) get 415", async () => {
    for (const ct of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const r = await post(base, GOOD, { "content-type": ct });
      expect(r.status, ct).toBe(415);
      expect((r.json.error as { code: string }).code).toBe("unsupported_media_type");
    }
    expect((await fetch(`${base}/v1/score`, { method: "POST", body: new Blob([GOOD]) })).status).toBe(415); // no Content-Type at all
    expect((await post(base, GOOD, { "content-type": "application/json; charset=utf-8" })).status).toBe(200);
  });

  it("a rollout nested 100 000 levels deep gets its own error entry; the rest of the batch is scored", async () => {
    const d = 100_000;
    const body = `{"rollouts":[{"id":"ok","group":"g","completion":"\\\\boxed{42}","reference":"42"},{"id":"deep","completion":"x","prompt":${'{"a":'.repeat(d)}1${"}".repeat(d)}}]}`;
    const r = await post(base, body);
    expect(r.status).toBe(200);
    const [ok, deep] = r.json.results as [Result, Result];
    expect(ok.reward).toBe(1);
    expect(deep.reward).toBeNull();
    expect(deep.error).toMatchObject({ field: "rollouts[1].prompt" });
    expect(deep.error!.message).toContain("nested deeper than 256 levels");
    expect((await post(base, GOOD)).status).toBe(200);
  });

  it("numeric group ids above 2^53 stay distinct groups", async () => {
    const body =
      '{"rollouts":[{"id":"a1","group":9007199254740993,"completion":"\\\\boxed{1}","reference":"1"},{"id":"a2","group":9007199254740993,"completion":"\\\\boxed{2}","reference":"1"},' +
      '{"id":"b1","group":9007199254740992,"completion":"\\\\boxed{1}","reference":"1"},{"id":"b2","group":9007199254740992,"completion":"\\\\boxed{1}","reference":"1"}]}';
    const r = await post(base, body);
    const [a1, a2, b1, b2] = r.json.results as [Result, Result, Result, Result];
    expect(a1.advantage).toBeGreaterThan(0);
    expect(a2.advantage).toBeLessThan(0);
    expect([b1.advantage, b2.advantage]).toEqual([0, 0]);
  });

  it("a client that goes away mid-body is counted in rewardkit_client_aborted_total, never as a 5xx", async () => {
    const five = /^rewardkit_requests_total\{[^}]*code="5\d\d"\} (\d+)$/gm;
    const before = await metric(base, five);
    for (let k = 0; k < 3; k++) {
      await new Promise<void>((resolve, reject) => {
        const s = net.connect(srv.port, "127.0.0.1", () => {
          s.write(
            `POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"rollouts": [` +
              " ".repeat(2000),
          );
          setTimeout(() => {
            s.destroy();
            resolve();
          }, 100);
        });
        s.on("error", reject);
      });
    }
    let aborted = 0;
    for (let i = 0; i < 100 && aborted < 3; i++) {
      await new Promise((r) => setTimeout(r, 20));
      aborted = await metric(base, /^rewardkit_client_aborted_total\{route="\/v1\/score",phase="body"\} (\d+)$/gm);
    }
    expect(aborted).toBe(3);
    expect(await metric(base, five)).toBe(before);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

describe("--allow-origin / --allow-host let exactly the named ones in", () => {
  it("the allowed origin and host pass; others still get 403", async () => {
    const srv = await startServer(spec(), {
      port: 0,
      concurrency: 1,
      allowOrigins: ["http://trusted.example"],
      allowHosts: ["rk.internal"],
    });
    try {
      expect((await post(srv.url, GOOD, { ...J, origin: "http://trusted.example" })).status).toBe(200);
      expect((await post(srv.url, GOOD, { ...J, origin: "http://evil.example" })).status).toBe(403);
      const head = (host: string): string =>
        `POST /v1/score HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(GOOD)}\r\nConnection: close\r\n\r\n`;
      expect(await rawStatus(srv.port, head(`rk.internal:${srv.port}`), GOOD)).toBe(200);
      expect(await rawStatus(srv.port, head(`other.internal:${srv.port}`), GOOD)).toBe(403);
    } finally {
      await srv.shutdown();
    }
  });
});

describe("body admission before the body is read", () => {
  it("past the bytes in flight, a request is refused with 429 before any of its body is sent", async () => {
    const srv = await startServer(spec(), {
      port: 0,
      concurrency: 1,
      maxBodyBytes: 1_000_000,
      maxInflightBytes: 1_500_000,
    });
    const head = (n: number): string =>
      `POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nContent-Type: application/json\r\nContent-Length: ${n}\r\nConnection: close\r\n\r\n`;
    // the first upload declares 1 MB and sends nothing yet: admitted, it holds its bytes while it waits
    const first = net.connect(srv.port, "127.0.0.1", () => first.write(head(1_000_000)));
    try {
      for (let i = 0; i < 100 && (await metric(srv.url, /^rewardkit_body_bytes_in_flight (\d+)$/gm)) < 1_000_000; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await metric(srv.url, /^rewardkit_body_bytes_in_flight (\d+)$/gm)).toBe(1_000_000);
      // a second 1 MB upload does not fit: 429 answered on its headers alone (no body byte is ever written)
      expect(await rawStatus(srv.port, head(1_000_000))).toBe(429);
      // a small one still fits
      expect(await rawStatus(srv.port, head(Buffer.byteLength(GOOD)), GOOD)).toBe(200);
      // over the body limit: 413 on the declared length, before the body
      expect(await rawStatus(srv.port, head(2_000_000))).toBe(413);
    } finally {
      first.destroy();
      await srv.shutdown();
    }
  });

  // Python's http.client (requests, the rewardkit client) writes the whole body before it reads: a server that
  // closes the connection on its early 413 leaves it with a broken pipe instead of the answer
  it.skipIf(!hasPython)(
    "a body far over the limit gets its 413 read by a client that sends the whole body first",
    async () => {
      const srv = await startServer(spec(), { port: 0, concurrency: 1, maxBodyBytes: 1_000_000 });
      try {
        const py = [
          "import http.client, sys",
          "h = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]), timeout=30)",
          "try:",
          "    h.request('POST', '/v1/score', body=b' ' * 20_000_000, headers={'Content-Type': 'application/json'})",
          "    print(h.getresponse().status)",
          "except Exception as e:",
          "    print(type(e).__name__)",
        ].join("\n");
        const out = await new Promise<string>((resolve) => {
          const child = spawn("python3", ["-c", py, String(srv.port)], { stdio: ["ignore", "pipe", "inherit"] });
          let o = "";
          child.stdout.on("data", (d: Buffer) => (o += d.toString()));
          child.on("close", () => resolve(o.trim()));
        });
        expect(out).toBe("413");
      } finally {
        await srv.shutdown();
      }
    },
  );

  it("past the requests in flight, 429", async () => {
    const srv = await startServer(spec(), { port: 0, concurrency: 1, maxRequests: 1 });
    const head = (n: number): string =>
      `POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nContent-Type: application/json\r\nContent-Length: ${n}\r\nConnection: close\r\n\r\n`;
    const first = net.connect(srv.port, "127.0.0.1", () => first.write(head(100)));
    try {
      for (let i = 0; i < 100 && (await metric(srv.url, /^rewardkit_requests_in_flight (\d+)$/gm)) < 1; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await rawStatus(srv.port, head(Buffer.byteLength(GOOD)), GOOD)).toBe(429);
    } finally {
      first.destroy();
      await srv.shutdown();
    }
  });
});

describe("startup", () => {
  it("a non-loopback host without a token is refused (before binding) unless insecure", async () => {
    await expect(startServer(spec(), { host: "0.0.0.0", port: 0 })).rejects.toThrow(
      /refusing to serve on 0\.0\.0\.0 without a token.*--insecure/,
    );
    await expect(startServer(spec(), { host: "::", port: 0 })).rejects.toThrow(/without a token/);
  });

  it("the CLI refuses a token on the command line and reads --token-file", async () => {
    const bin = join(ROOT, "bin/rewardkit.js");
    const argv = spawnSync(
      process.execPath,
      [bin, "serve", "--spec", "examples/math.yaml", "--port", "0", "--token", "s3cret"],
      { cwd: ROOT, encoding: "utf8", timeout: 30_000 },
    );
    expect(argv.status).toBe(1);
    expect(argv.stderr).toContain("--token: a token on the command line is visible to every local user");
    const empty = join(tmp(), "empty");
    writeFileSync(empty, "\n");
    const bad = spawnSync(
      process.execPath,
      [bin, "serve", "--spec", "examples/math.yaml", "--port", "0", "--token-file", empty],
      { cwd: ROOT, encoding: "utf8", timeout: 30_000 },
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("the file is empty");
    const file = join(tmp(), "token");
    writeFileSync(file, "from-file\n");
    const child = spawn(
      process.execPath,
      [bin, "serve", "--spec", "examples/math.yaml", "--port", "0", "-j", "1", "--token-file", file],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let err = "";
        child.stderr.on("data", (d: Buffer) => {
          err += d.toString();
          const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
          if (m) resolve(Number(m[1]));
        });
        child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      });
      expect((await fetch(`http://127.0.0.1:${port}/v1/spec`)).status).toBe(401);
      expect(
        (await fetch(`http://127.0.0.1:${port}/v1/spec`, { headers: { authorization: "Bearer from-file" } })).status,
      ).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
