/**
 * Bundles the compiled CLI (`dist/cli/main.js`) and the project's own modules into a few files in `dist/bundle/`, so
 * that a `rewardkit` process loads ~40 files instead of ~390 (each ES module costs the loader a resolution, a read and
 * a compile: a quarter of a short `rewardkit score` run's CPU went there). Run by `npm run build` after `tsc`.
 *
 * What stays outside the bundle, loaded from `node_modules` as usual: every package except zod, yaml and commander
 * (small, pure, and 97 of the modules). Packages that find their own files at run time (piscina's worker, chart.js's
 * assets, the CAS, the language detector's data) keep working because they are not moved. The verifier workers
 * (`dist/engine/worker.js`) import the unbundled `dist/` tree; the bundle sits two folders below the repository root
 * like every `dist/<folder>/` file, so paths written relative to `import.meta.url` resolve the same.
 * `bin/rewardkit.js` runs the bundle when it exists, else `dist/cli/main.js`.
 */
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = fileURLToPath(new URL("..", import.meta.url));
const INLINE = new Set(["zod", "yaml", "commander"]);
const out = `${root}dist/bundle`;
rmSync(out, { recursive: true, force: true });
await build({
  input: { cli: `${root}dist/cli/main.js` },
  platform: "node",
  external: (id) => {
    if (id.startsWith("node:")) return true;
    if (id.startsWith(".") || id.startsWith("/")) return false;
    const pkg = id.startsWith("@") ? id.split("/").slice(0, 2).join("/") : id.split("/")[0];
    return !INLINE.has(pkg);
  },
  output: { dir: out, format: "esm", entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
  logLevel: "warn",
});
