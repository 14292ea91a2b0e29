import { isUtf8 } from "node:buffer";
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { UserError } from "../core/errors.js";

/** One raw line of a JSONL source. */
export interface RawLine {
  /** 1-based line number in the (decompressed) source: the count of `\n` before it, plus one. */
  line: number;
  text: string;
}

/**
 * Longest line read, bytes (default 256 MiB). A longer line is skipped without being held whole: past about
 * 512 MiB a JavaScript string cannot even hold it, and a line that long is a broken file, not a rollout.
 */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/** What {@link readLines} does with lines it cannot read. */
export interface ReadLinesOptions {
  /**
   * Called for each line that cannot be read (invalid UTF-8, longer than `maxLineBytes`, cut off by a damaged
   * gzip stream), with its line number; the line is skipped and reading goes on. Without it such a line throws a
   * {@link UserError} naming file and line.
   */
  onProblem?: (line: number, message: string) => void;
  /** Longest line, bytes ({@link MAX_LINE_BYTES}). */
  maxLineBytes?: number;
}

/**
 * Opens a file (`.gz` decompressed by extension) or stdin (`-`) as a byte stream. Errors of the file itself
 * (missing, unreadable) surface on the returned stream, also through the gunzip.
 */
export function openInput(path: string): Readable {
  const raw: Readable = path === "-" ? process.stdin : createReadStream(path);
  if (!path.endsWith(".gz")) return raw;
  const gunzip = createGunzip();
  // pipe() does not forward errors: without this a missing .gz file is an uncaught 'error' event
  raw.on("error", (e) => gunzip.destroy(e));
  if (path !== "-") gunzip.on("close", () => raw.destroy());
  return raw.pipe(gunzip);
}

/** A zlib error (corrupt or truncated gzip data) rather than an error of the file itself. */
function isZlibError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && code.startsWith("Z_");
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Streams the non-blank lines of a JSONL file or stdin with their line numbers; never holds the file whole, nor
 * more than `maxLineBytes` of one line. Lines end at `\n` only (a `\r` before it is dropped; a bare `\r` is JSON
 * whitespace or a malformed line, never a line break, so line numbers match `wc -l` / an editor's `\n` count).
 * A UTF-8 byte order mark at the start is dropped. Each line must be valid UTF-8 (never replaced silently).
 *
 * A gzip stream that breaks off (a truncated or corrupted `.gz`) after some lines were read is a problem at the
 * line where it broke (the lines before it are yielded); one that yields nothing at all is not gzip data: a
 * {@link UserError}.
 * @param path file path, `-` for stdin; `.gz` is gunzipped.
 * @throws UserError for unreadable lines without `onProblem` and for a `.gz` that is not gzip; the file's own
 *   error (ENOENT, EACCES, EISDIR) as it is.
 */
export async function* readLines(path: string, opts: ReadLinesOptions = {}): AsyncGenerator<RawLine> {
  const file = path === "-" ? "<stdin>" : path;
  const max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const problem = (line: number, message: string): void => {
    if (!opts.onProblem) throw new UserError(`${file}:${line}: ${message}`);
    opts.onProblem(line, message);
  };
  const input = openInput(path);
  let line = 0;
  let parts: Buffer[] = [];
  let held = 0; // bytes in `parts`
  let tooLong = false; // the current line passed `max`: its bytes are dropped until its end
  let total = 0; // decompressed bytes seen
  let first = true;

  /** The current line's text, or undefined when it is blank or unreadable (reported). */
  const finish = (): string | undefined => {
    line++;
    if (tooLong) {
      tooLong = false;
      problem(line, `line longer than ${max} bytes (${Math.round(max / 1048576)} MiB): skipped`);
      return undefined;
    }
    let buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts, held);
    parts = [];
    held = 0;
    if (first) {
      first = false;
      if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3); // UTF-8 BOM
    }
    if (buf.length > 0 && buf[buf.length - 1] === CR) buf = buf.subarray(0, buf.length - 1);
    if (!isUtf8(buf)) {
      problem(line, "not valid UTF-8 (the line is skipped, not repaired)");
      return undefined;
    }
    const text = buf.toString("utf8");
    return text.trim() === "" ? undefined : text;
  };
  const take = (seg: Buffer): void => {
    if (tooLong || seg.length === 0) return;
    if (held + seg.length > max) {
      tooLong = true;
      parts = [];
      held = 0;
      return;
    }
    parts.push(seg);
    held += seg.length;
  };

  try {
    try {
      for await (const chunk of input as AsyncIterable<Buffer>) {
        total += chunk.length;
        let at = 0;
        for (let nl = chunk.indexOf(LF, at); nl >= 0; nl = chunk.indexOf(LF, at)) {
          take(chunk.subarray(at, nl));
          at = nl + 1;
          const text = finish();
          if (text !== undefined) yield { line, text };
        }
        // copy the tail: a subarray would pin the whole chunk while the line grows
        if (at < chunk.length) take(at === 0 ? chunk : Buffer.from(chunk.subarray(at)));
      }
    } catch (e) {
      if (!isZlibError(e)) throw e;
      const why = (e as Error).message;
      if (total === 0)
        throw new UserError(
          `${file}: not readable as gzip (${why}); is it compressed? (.gz is decompressed by its extension)`,
        );
      // the lines before the break were yielded; the rest of the file is lost
      problem(line + 1, `the gzip data breaks off here (${why}): this line and anything after it are unreadable`);
      return;
    }
    if (held > 0 || tooLong) {
      const text = finish(); // a last line without a final newline
      if (text !== undefined) yield { line, text };
    }
  } finally {
    // a consumer that stops early (strict mode, an error) must not leave the file descriptor open
    if (path !== "-") input.destroy();
  }
}
