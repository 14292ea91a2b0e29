#!/usr/bin/env node
// Entry point: runs the CLI bundle (dist/bundle/, made by `npm run build`: ~40 files to load instead of ~390) when it
// is at least as new as the compiled CLI (dist/cli/main.js; a bare `tsc` rebuild leaves the bundle behind, and then
// the compiled tree runs). Both are built by `npm ci` through the `prepare` script.
import { statSync } from "node:fs";

const mtime = (p) => statSync(new URL(p, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const bundled = mtime("../dist/bundle/cli.js") >= mtime("../dist/cli/main.js");
const { main } = await import(bundled ? "../dist/bundle/cli.js" : "../dist/cli/main.js");
process.exitCode = await main(process.argv);
