import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../../test/helpers.js";
import { describe, expect, it } from "vitest";
import { codeDigest } from "./shared-verdicts.js";

describe("codeDigest: replicas running other code never share verdicts", () => {
  it("changes with any code file's content and with a plugin module, not with maps or declarations", () => {
    const dir = () => {
      const d = tmp();
      writeFileSync(join(d, "math.js"), "export const grade = (a, b) => a === b;");
      writeFileSync(join(d, "math.js.map"), "{}");
      return d;
    };
    const a = dir();
    const b = dir();
    expect(codeDigest([], a)).toBe(codeDigest([], b)); // same code, other folder name: same namespace
    const c = dir();
    writeFileSync(join(c, "math.js"), "export const grade = (a, b) => a == b; // a fix"); // a verifier fixed
    expect(codeDigest([], c)).not.toBe(codeDigest([], a));
    const d = dir();
    writeFileSync(join(d, "math.js.map"), '{"changed": true}');
    writeFileSync(join(d, "types.d.ts"), "export {};");
    expect(codeDigest([], d)).toBe(codeDigest([], a));
    const plugin = join(dir(), "plugin.mjs");
    writeFileSync(plugin, "export default 1;");
    expect(codeDigest([plugin], a)).not.toBe(codeDigest([], a));
    expect(codeDigest()).toMatch(/^[A-Za-z0-9_-]{16}$/); // this build's own
  });
});
