import { randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { once } from "node:events";
import type { Writable } from "node:stream";
import { createGzip } from "node:zlib";
import { registerTemp, unregisterTemp } from "./temp.js";

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

/** Options of {@link openLineWriter}. */
export interface LineWriterOptions {
  /** Gzip the lines (default: when `path` ends in `.gz`). */
  gzip?: boolean;
}

/**
 * Opens a line writer on a file (parent folders created; gzip-compressed when the path ends in `.gz`) or on
 * stdout when `path` is undefined or `-`. Each `write` appends `line + "\n"`.
 */
export function openLineWriter(path: string | undefined, opts: LineWriterOptions = {}): LineWriter {
  const toStdout = path === undefined || path === "-";
  let stream: Writable;
  let file: Writable | undefined;
  if (toStdout) stream = process.stdout;
  else {
    ensureParent(path);
    const f = createWriteStream(path);
    file = f;
    if (opts.gzip ?? path.endsWith(".gz")) {
      const gz = createGzip();
      f.on("error", (e) => gz.destroy(e)); // pipe() does not forward the file's errors to the writer's side
      gz.pipe(f);
      stream = gz;
    } else stream = f;
  }
  // an error of the file (ENOSPC, EACCES) fails the next write or the close instead of being an uncaught event
  // (also on stdout: a reader that went away, `| head`, is an EPIPE emitted after a write that returned true; the
  // next write throws it and the CLI ends quietly)
  let failure: Error | undefined;
  const onError = (e: Error): void => {
    failure ??= e;
  };
  stream.on("error", onError);
  /** Throws the stream's error, if one came (a function: the listener sets it between awaits). */
  const rethrow = (): void => {
    if (failure) throw failure;
  };
  return {
    async write(line) {
      if (failure) throw failure;
      if (!stream.write(line + "\n")) await once(stream, "drain");
    },
    async close() {
      if (toStdout) {
        // the listener stays: an EPIPE of the last write may still be on its way
        if (failure) throw failure;
        return;
      }
      if (failure) throw failure;
      const closed = once(file!, "close");
      stream.end();
      await closed;
      rethrow();
    },
    destroy() {
      if (toStdout) return;
      if (stream !== file) stream.destroy();
      file!.destroy();
    },
  };
}

/**
 * Whether `path` exists and is a device, a named pipe or a socket (`/dev/null`, `/dev/stdout`, a FIFO): such a path is
 * written in place. Renaming a temporary file onto it would replace the device itself (as root, `/dev/null` became a
 * plain file and every process on the machine that wrote to it filled it).
 */
export function writtenInPlace(path: string): boolean {
  const st = statSync(path, { throwIfNoEntry: false });
  return st !== undefined && !st.isFile() && !st.isDirectory();
}

/**
 * Output files written as a whole or not at all: each is written under a temporary name beside its final path
 * (same folder, so the rename cannot cross file systems) and {@link commit} renames them all at once, in one
 * synchronous step that no signal handler can interleave. Until then the previous files stay as they were;
 * {@link discard} removes the temporary files (on an error or an interrupt).
 */
export class OutputSet {
  private readonly files: Array<{ temp: string; final: string }> = [];
  private done = false;

  /**
   * Reserves `final`: @returns the temporary path to write it to (parent folders created). A path that exists and
   * is not a regular file (`-o /dev/null`, `/dev/stdout`, a named pipe) is returned as it is and written in place:
   * renaming a temporary file onto it would replace the device itself (as root, `/dev/null` became a plain file).
   */
  reserve(final: string): string {
    if (writtenInPlace(final)) return final;
    ensureParent(final);
    const temp = join(dirname(final), `.${basename(final)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
    this.files.push({ temp, final });
    registerTemp(temp);
    return temp;
  }

  /** The final paths reserved so far. */
  get paths(): string[] {
    return this.files.map((f) => f.final);
  }

  /** Renames every temporary file to its final path. A file never written is skipped. */
  commit(): void {
    if (this.done) return;
    this.done = true;
    for (const f of this.files) {
      unregisterTemp(f.temp);
      try {
        renameSync(f.temp, f.final);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
  }

  /** Removes the temporary files; the final paths keep what they held. Safe to call twice and after commit. */
  discard(): void {
    if (this.done) return;
    this.done = true;
    for (const f of this.files) {
      rmSync(f.temp, { force: true });
      unregisterTemp(f.temp);
    }
  }
}
