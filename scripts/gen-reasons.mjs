// Regenerates docs/reasons.md from src/core/reasons.ts (via dist/). `npm test` checks it is current.
import { writeFileSync } from "node:fs";
import { renderReasons } from "../dist/core/reasons-doc.js";

writeFileSync(new URL("../docs/reasons.md", import.meta.url), renderReasons());
console.log("wrote docs/reasons.md");
