import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { once } from "node:events";
import type { Writable } from "node:stream";

/** A line sink with backpressure: `write` resolves when the stream can take more. */
export interface LineWriter {
  write(line: string): Promise<void>;
  /** Ends the stream and resolves when everything is flushed (stdout is left open). */
  close(): Promise<void>;
  /** Abandons a file on an error path: closes its descriptor without flushing (stdout is left open). */
  destroy(): void;
}

/** Creates the parent folders of `path` (like `mkdir -p`). */
export function ensureParent(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
}

/** Writes `text` to `path`, creating missing folders. */
export function writeFileCreating(path: string, text: string): void {
  ensureParent(path);
  writeFileSync(path, text);
}

/**
 * Opens a line writer on a file (parent folders created) or on stdout when `path` is undefined or `-`.
 * Each `write` appends `line + "\n"`.
 */
export function openLineWriter(path: string | undefined): LineWriter {
  const toStdout = path === undefined || path === "-";
  let stream: Writable;
  if (toStdout) stream = process.stdout;
  else {
    ensureParent(path);
    stream = createWriteStream(path);
  }
  return {
    async write(line) {
      if (!stream.write(line + "\n")) await once(stream, "drain");
    },
    async close() {
      if (toStdout) return;
      stream.end();
      await once(stream, "finish");
    },
    destroy() {
      if (!toStdout) stream.destroy();
    },
  };
}
