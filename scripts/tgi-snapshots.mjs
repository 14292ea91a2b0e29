// The recorded /generate responses of TGI's integration-test snapshots (a `__snapshots__/` folder of model folders of
// JSON files), read in a fixed order: shared by the scripts that build bundled data from them.
import { readFileSync, readdirSync } from "node:fs";

/**
 * Every snapshot file under `root` (a URL ending in `/`), folders and files sorted by name.
 * @returns for each file: its folder, its name and its responses (a file holding one response gives a list of one).
 */
export function* snapshotFiles(root) {
  for (const dir of readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    for (const file of readdirSync(new URL(`${dir}/`, root))
      .filter((n) => n.endsWith(".json"))
      .sort()) {
      const data = JSON.parse(readFileSync(new URL(`${dir}/${file}`, root), "utf8"));
      yield { dir, file, items: Array.isArray(data) ? data : [data] };
    }
  }
}
