/**
 * Vitest global setup: the worker pool runs compiled JavaScript (`dist/engine/worker.js`), so a test of a
 * worker-isolated verifier would test yesterday's `dist/` after a source change. When any file under `src/` is newer
 * than the last build, build first (`tsc -p tsconfig.build.json` and the CLI bundle, as `npm run build`); `npm test` has just built, so
 * there it costs one directory walk.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const STAMP = join(ROOT, "dist", ".build-stamp");

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (!/\.test(-helper)?\.ts$/.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

export default function setup(): void {
  const mtime = (p: string): number => (existsSync(p) ? statSync(p).mtimeMs : 0);
  const built = Math.max(mtime(STAMP), mtime(join(ROOT, "dist", "engine", "worker.js")));
  if (newest(join(ROOT, "src")) <= built) return;
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
      { cwd: ROOT, stdio: "inherit" },
    );
  } catch {
    // tsc still emits on a type error; `npm run typecheck` reports it
    process.stderr.write("test/global-setup: the build reported type errors (dist/ was still written)\n");
  }
  // the CLI bundle `bin/rewardkit.js` runs (else it falls back to the tree just compiled)
  execFileSync(process.execPath, [join(ROOT, "scripts", "bundle-cli.mjs")], { cwd: ROOT, stdio: "inherit" });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}
