import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readLines } from "./jsonl.js";
import type { RawLine } from "./jsonl.js";
import { openLineWriter } from "./output.js";
import type { LineWriter } from "./output.js";
import { registerTemp, unregisterTemp } from "./temp.js";

/**
 * A temporary JSONL file for two-pass jobs: scored lines are spilled in pass one (while only numbers stay in
 * memory), and read back in pass two to add what needs the whole batch (advantages). Bounded memory for
 * inputs of any size (the numbers still take about 280 bytes per rollout). The folder is removed on every exit
 * path: {@link dispose}, and the interrupt and exit hooks of `src/io/temp.ts`.
 */
export class Spill {
  private readonly dir = mkdtempSync(join(tmpdir(), "rewardkit-"));
  readonly path = join(this.dir, "spill.jsonl");
  // Opened on the first write: a job that fails before writing anything has no stream still opening when the
  // folder is removed (that open would fail with an uncaught ENOENT).
  private writer: LineWriter | undefined;

  constructor() {
    registerTemp(this.dir); // removed on SIGINT/SIGTERM and at exit too (src/io/temp.ts), not only by dispose()
  }

  write(line: string): Promise<void> {
    this.writer ??= openLineWriter(this.path);
    return this.writer.write(line);
  }

  /** Closes the write side and streams the lines back in order (none when nothing was written). */
  async *read(): AsyncGenerator<RawLine> {
    if (!this.writer) return;
    await this.writer.close();
    yield* readLines(this.path, { maxLineBytes: Number.MAX_SAFE_INTEGER }); // our own lines: an input line plus its scores
  }

  /** Closes and deletes the temporary file, also when pass two never ran (an error in pass one). Safe to call twice. */
  dispose(): void {
    this.writer?.destroy();
    rmSync(this.dir, { recursive: true, force: true });
    unregisterTemp(this.dir);
  }
}
