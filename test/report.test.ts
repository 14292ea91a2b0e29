import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { histogram } from "../src/report/charts.js";
import { readScored, runReportHtml } from "../src/report/run.js";
import { probeReportHtml } from "../src/report/probe.js";
import type { ProbeReport } from "../src/probe/run.js";
import { tmp } from "./helpers.js";

/** Eight scored rollouts over two steps and two groups; reward = accuracy + 0.5·format. */
function scoredFile(): string {
  const dir = tmp();
  const rows = [
    [1, 1, 0, 120, "g1"],
    [0, 1, 0, 300, "g1"],
    [1, 0, 0, 80, "g2"],
    [1, 0, 0, 90, "g2"],
    [1, 1, 1, 400, "g3"],
    [0, null, 1, 50, "g3"],
    [1, 1, 1, 500, "g4"],
    [0, 0, 1, 20, "g4"],
  ] as const;
  const lines = rows.map(([acc, fmtScore, step, tokens, group], i) => {
    const reward = acc + 0.5 * (fmtScore ?? 0);
    return JSON.stringify({
      id: `r${i}`,
      group,
      step,
      completion: "x".repeat(tokens * 4),
      completion_tokens: tokens,
      reward,
      components: {
        accuracy: { score: acc, status: "ok" },
        format:
          fmtScore === null
            ? { score: null, status: "unscorable", reason: "timeout" }
            : { score: fmtScore, status: "ok" },
      },
      advantage: i % 2 === 0 ? 0.7 : -0.7,
    });
  });
  const file = join(dir, "scored.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

/** External resources in a page: what the acceptance check forbids (script, link, img, iframe … loaded from a URL or file). */
function externalResources(html: string): string[] {
  const bare = html
    .replace(/(<script\b[^>]*>)[\s\S]*?<\/script>/gi, "$1</script>")
    .replace(/(<style\b[^>]*>)[\s\S]*?<\/style>/gi, "$1</style>");
  return [
    ...bare.matchAll(
      /<(?:script|link|img|iframe|frame|source|embed|object|video|audio)\b[^>]*\b(?:src|href|data|srcset|poster)\s*=\s*["']?([^"'\s>]+)/gi,
    ),
  ]
    .map((m) => m[1]!)
    .filter((u) => !/^(data:|#|about:|blob:)/.test(u));
}

describe("report building blocks", () => {
  it("histogram: one bar per value for few distinct values, equal-width bins otherwise", () => {
    expect(histogram([0, 1, 1, 0.5, 1])).toEqual({ labels: ["0", "0.5", "1"], counts: [1, 1, 3] });
    const h = histogram(
      Array.from({ length: 40 }, (_, i) => i),
      4,
      12,
    );
    expect(h.counts).toEqual([10, 10, 10, 10]);
    expect(h.labels[0]).toBe("0…9.75");
    expect(histogram([NaN, Infinity])).toEqual({ labels: [], counts: [] });
  });
});

describe("run report", () => {
  it("reads a scored file and shows its figures as text, with every chart inline", async () => {
    const d = await readScored(scoredFile());
    expect(d.components).toEqual(["accuracy", "format"]);
    expect(d.rows.map((r) => r.length)).toEqual([120, 300, 80, 90, 400, 50, 500, 20]);
    const html = runReportHtml(d);
    // rewards 1.5, 0.5, 1, 1, 1.5, 0, 1.5, 0 → mean 7/8 = 0.875, count 8
    expect(html).toContain("count 8 rollouts; reward mean 0.875");
    expect((html.match(/<canvas\b/g) ?? []).length).toBe(12); // 2 summary, 2 per step, 4 hacking (with the drift over 2 steps), 2 groups, 2 curriculum
    expect(html).toContain("Drift over steps");
    expect(externalResources(html)).toEqual([]);
    expect(html).not.toMatch(/sourceMappingURL/);
    // the slowest rollouts: the one whose format component timed out
    expect(html).toMatch(/<td>r5<\/td><td>g3<\/td><td>format<\/td>/);
    // the zero-variance group g2 (rewards 1 and 1) of 4 groups
    expect(html).toContain("1 of 4 groups with two or more rewards have all-equal rewards (25.0%)");
  });
  it("a probe report is one page with at least three charts", () => {
    const p: ProbeReport = {
      spec: { name: "s", hash: "h" },
      rollouts: 2,
      malformed: 0,
      sampled: 2,
      baseline: { description: "b", meanReward: 0 },
      original: { meanReward: 1 },
      probes: [
        {
          name: "hedge",
          family: "answers",
          description: "d",
          n: 2,
          above: 1,
          rate: 0.5,
          meanReward: 0.5,
          baselineMean: 0,
          paidBy: { hit: 0.5 },
          examples: [{ id: "1", completion: "<b>x</b>", reward: 1, baseline: 0, above: true, components: { hit: 1 } }],
        },
      ],
      skipped: [],
    };
    const html = probeReportHtml(p);
    expect((html.match(/<canvas\b/g) ?? []).length).toBe(3);
    expect(html).toContain("&lt;b&gt;x&lt;/b&gt;"); // completions are escaped, never markup
    expect(html).toContain("NOT documented");
  });
});

// ---- in a real browser: Debian's chromium (CI installs it); skipped, saying so, where it is missing
const chrome = ["chromium", "chromium-browser"]
  .map((c) => spawnSync("sh", ["-c", `command -v ${c}`], { encoding: "utf8" }).stdout.trim())
  .find((p) => p !== "");
if (!chrome)
  console.warn(
    "report.test.ts: chromium not found: the headless-browser report test is skipped (apt-get install chromium)",
  );

/** Share of sampled pixels with a colour (max − min channel > 40) in an 8-bit RGB(A) PNG. */
function colouredShare(png: Buffer): number {
  let pos = 8;
  let w = 0;
  let h = 0;
  let type = 0;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const n = png.readUInt32BE(pos);
    const t = png.toString("latin1", pos + 4, pos + 8);
    const chunk = png.subarray(pos + 8, pos + 8 + n);
    if (t === "IHDR") {
      w = chunk.readUInt32BE(0);
      h = chunk.readUInt32BE(4);
      type = chunk[9]!;
    } else if (t === "IDAT") idat.push(chunk);
    pos += 12 + n;
  }
  const bpp = type === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = w * bpp;
  let prev = Buffer.alloc(stride);
  let coloured = 0;
  let seen = 0;
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)]!;
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      const p = a + b - c;
      const pr =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      line[i] = (line[i]! + (f === 1 ? a : f === 2 ? b : f === 3 ? (a + b) >> 1 : f === 4 ? pr : 0)) & 255;
    }
    if (y % 4 === 0)
      for (let x = 0; x < stride; x += bpp * 4) {
        seen++;
        if (Math.max(line[x]!, line[x + 1]!, line[x + 2]!) - Math.min(line[x]!, line[x + 1]!, line[x + 2]!) > 40)
          coloured++;
      }
    prev = line;
  }
  return coloured / seen;
}

describe.skipIf(!chrome)("run report in headless chromium", () => {
  it("loads with no error, draws every chart, and shows the mean and count", async () => {
    const dir = tmp();
    const html = runReportHtml(await readScored(scoredFile()));
    // record errors, rejections and console.error on the page itself, where --dump-dom can read them
    const hook = `<script>(function(){var E=[];function put(m){E.push(String(m));document.documentElement.setAttribute('data-errors',JSON.stringify(E));}
window.addEventListener('error',function(e){put(e.message||'resource');},true);window.addEventListener('unhandledrejection',function(e){put(e.reason);});
var ce=console.error;console.error=function(){put(Array.prototype.join.call(arguments,' '));return ce.apply(console,arguments);};
window.addEventListener('load',function(){var n=0;document.querySelectorAll('canvas').forEach(function(c){var d=c.getContext('2d').getImageData(0,0,c.width,c.height).data;for(var i=3;i<d.length;i+=4){if(d[i]>0){n++;break;}}});document.documentElement.setAttribute('data-drawn',String(n));});})();</script>`;
    const page = join(dir, "report.html");
    writeFileSync(page, html.replace("<head>", `<head>${hook}`));
    const flags = [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      `--user-data-dir=${join(dir, "profile")}`,
      "--virtual-time-budget=10000",
    ];
    const dom = spawnSync(chrome!, [...flags, "--dump-dom", `file://${page}`], {
      encoding: "utf8",
      timeout: 60_000,
    }).stdout;
    expect(dom.includes("<body")).toBe(true);
    expect(/data-errors="([^"]*)"/.exec(dom)?.[1] ?? "none").toBe("none");
    expect((dom.match(/<canvas\b/g) ?? []).length).toBe(12);
    expect(/data-drawn="(\d+)"/.exec(dom)?.[1]).toBe("12"); // every canvas has drawn pixels
    const text = dom.replace(/<script[\s\S]*?<\/script>/g, "").replace(/<[^>]+>/g, " ");
    expect(text.includes("reward mean 0.875")).toBe(true);
    expect(text.includes("count 8 rollouts")).toBe(true);
    spawnSync(
      chrome!,
      [...flags, "--window-size=1280,2400", `--screenshot=${join(dir, "shot.png")}`, `file://${page}`],
      { timeout: 60_000 },
    );
    expect(existsSync(join(dir, "shot.png"))).toBe(true);
    expect(colouredShare(readFileSync(join(dir, "shot.png")))).toBeGreaterThan(0.005);
  }, 120_000);
});
