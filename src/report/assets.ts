import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let chartJs: string | undefined;

/**
 * The Chart.js UMD bundle (chart.js 4, MIT, pinned in package.json) as text, to inline into a report: the page then
 * needs no network and no other file. Its source-map comment is dropped (the map is not shipped with the page).
 */
export function chartJsSource(): string {
  if (chartJs === undefined) {
    const main = createRequire(import.meta.url).resolve("chart.js"); // …/chart.js/dist/chart.cjs
    const src = readFileSync(join(dirname(main), "chart.umd.min.js"), "utf8");
    chartJs = src.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n");
  }
  return chartJs;
}

/** Text made safe inside an inline `<script>`: no `</script` (or `<!--`) can end or confuse the element. */
export function scriptSafe(js: string): string {
  return js.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}
