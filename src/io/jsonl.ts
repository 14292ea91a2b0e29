import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/** One raw line of a JSONL source. */
export interface RawLine {
  /** 1-based line number in the (decompressed) source. */
  line: number;
  text: string;
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

/**
 * Streams the non-blank lines of a JSONL file or stdin with their line numbers; never holds the file whole.
 * @param path file path, `-` for stdin; `.gz` is gunzipped.
 * @throws the stream's error (missing file, corrupt gzip) from the iterator.
 */
export async function* readLines(path: string): AsyncGenerator<RawLine> {
  const input = openInput(path);
  const rl = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  // readline does not forward errors of a piped gunzip: surface them through the iterator.
  let failure: Error | undefined;
  input.on("error", (e) => {
    failure = e;
    rl.close();
  });
  try {
    for await (const text of rl) {
      line++;
      if (text.trim() !== "") yield { line, text };
    }
  } finally {
    // a consumer that stops early (strict mode, an error) must not leave the file descriptor open
    if (path !== "-") input.destroy();
  }
  if (failure) throw failure;
}
