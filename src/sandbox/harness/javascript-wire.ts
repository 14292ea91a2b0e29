/**
 * The wire of the JavaScript judge's processes (the test runner and the program's worker): newline-delimited JSON
 * requests read from fd 3 (`recv`, null at end of input) and replies written to fd 4 (`send`), as
 * `python-wire.ts` is for Python. Spliced into both programs' source.
 */
export const JAVASCRIPT_WIRE = String.raw`const fs = require("fs");
const IN = 3, OUT = 4;
let buf = Buffer.alloc(0);
function recv() {
  for (;;) {
    const i = buf.indexOf(10);
    if (i >= 0) {
      const line = buf.subarray(0, i).toString("utf8");
      buf = buf.subarray(i + 1);
      return JSON.parse(line);
    }
    const chunk = Buffer.alloc(1 << 20);
    let n;
    try {
      n = fs.readSync(IN, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code === "EAGAIN") continue;
      if (e.code === "EOF") return null;
      throw e;
    }
    if (n === 0) return null;
    buf = Buffer.concat([buf, chunk.subarray(0, n)]);
  }
}
function send(obj) {
  const b = Buffer.from(JSON.stringify(obj) + "\n", "utf8");
  let off = 0;
  while (off < b.length) off += fs.writeSync(OUT, b, off);
}
`;
