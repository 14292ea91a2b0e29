import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readLines } from "./jsonl.js";
import type { RawLine } from "./jsonl.js";
import { openLineWriter } from "./output.js";
import type { LineWriter } from "./output.js";

/**
 * A temporary JSONL file for two-pass jobs: scored lines are spilled in pass one (while only numbers stay in
 * memory), and read back in pass two to add what needs the whole batch (advantages). Bounded memory for
 * inputs of any size.
 */
export class Spill {
  private readonly dir = mkdtempSync(join(tmpdir(), "rewardkit-"));
  readonly path = join(this.dir, "spill.jsonl");
  private readonly writer: LineWriter = openLineWriter(this.path);

  write(line: string): Promise<void> {
    return this.writer.write(line);
  }

  /** Closes the write side and streams the lines back in order. */
  async *read(): AsyncGenerator<RawLine> {
    await this.writer.close();
    yield* readLines(this.path);
  }

  /** Deletes the temporary file. Safe to call twice. */
  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
