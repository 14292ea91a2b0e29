/**
 * Idempotent requests: a request that carries `X-Rewardkit-Request-Id` is answered once. A retry with the same id and
 * the same body (a client that lost the connection, a failover to another replica) gets the recorded answer without
 * scoring anything twice; the same id with another body is refused (409). Records live in the store (`--store`: the
 * fleet's, so a retry on any replica finds them; else this process's), `ttlMs` after the answer.
 *
 * While a request is being scored its record is a *claim* renewed every `claimMs / 3` by its replica: a duplicate
 * arriving meanwhile waits for the answer instead of scoring again; a replica that dies stops renewing, and its claim
 * expires within `claimMs`, so the retry that follows a crash is scored by the replica it reached.
 */
import { createHash, randomBytes } from "node:crypto";
import type { StoreGuard } from "../store/guard.js";

/** Header carrying the request id (1–200 visible ASCII characters). */
export const REQUEST_ID_HEADER = "X-Rewardkit-Request-Id";

/** A JSON answer as recorded: status and body text. */
export interface Answer {
  status: number;
  body: string;
}

type RecordValue = { state: "pending"; hash: string; owner: string } | { state: "done"; hash: string; answer: Answer };

/** What {@link Idempotency.run} did. */
export type Outcome = { kind: "answered"; answer: Answer; replayed: boolean } | { kind: "conflict"; message: string };

/** Settings of {@link Idempotency}. */
export interface IdempotencyOptions {
  /** How long an answer is kept, ms (default 600 000). */
  ttlMs?: number;
  /** How long a claim lives without renewal, ms (default 3 000). */
  claimMs?: number;
  /** Poll interval of a duplicate waiting for the answer, ms (default 25). */
  pollMs?: number;
  /** Longest wait of a duplicate for another request's answer before scoring itself, ms (default 120 000). */
  maxWaitMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A valid request id, or an error message naming the header. */
export function requestId(value: string | undefined): { id: string | undefined } | { error: string } {
  if (value === undefined || value === "") return { id: undefined };
  if (value.length > 200 || !/^[\x21-\x7e]+$/.test(value))
    return { error: `${REQUEST_ID_HEADER} header: expected 1 to 200 visible ASCII characters` };
  return { id: value };
}

/** The records of one served spec (ids are per spec: two specs served by one fleet never share answers). */
export class Idempotency {
  readonly ttlMs: number;
  private readonly claimMs: number;
  private readonly pollMs: number;
  private readonly maxWaitMs: number;
  /** Answers replayed from a record. */
  replays = 0;
  /** Duplicates that waited for another request's answer. */
  joins = 0;

  constructor(
    private readonly guard: StoreGuard,
    private readonly namespace: string,
    o: IdempotencyOptions = {},
  ) {
    this.ttlMs = o.ttlMs ?? 600_000;
    this.claimMs = o.claimMs ?? 3_000;
    this.pollMs = o.pollMs ?? 25;
    this.maxWaitMs = o.maxWaitMs ?? 120_000;
  }

  private key(id: string): string {
    return `r:${this.namespace}:${id}`;
  }

  private async read(key: string): Promise<RecordValue | undefined> {
    const [v] = await this.guard.attempt(
      "idempotency",
      (s) => s.getMany([key]),
      () => [undefined],
    );
    if (v === undefined) return undefined;
    try {
      return JSON.parse(v) as RecordValue;
    } catch {
      return undefined;
    }
  }

  /**
   * Answers request `id` with body `body`: from its record, by waiting for the request that holds its claim, or by
   * `compute()` (recorded when its status is 2xx). When the store fails, computes (a duplicate may then be scored
   * twice; the answer is the same, verdicts being pure).
   */
  async run(id: string, body: string, compute: () => Promise<Answer>): Promise<Outcome> {
    const key = this.key(id);
    const hash = createHash("sha256").update(body).digest("base64url");
    const owner = randomBytes(8).toString("hex");
    const t0 = Date.now();
    let joined = false;
    for (;;) {
      const rec = await this.read(key);
      if (rec && rec.hash !== hash)
        return {
          kind: "conflict",
          message: `${REQUEST_ID_HEADER} ${JSON.stringify(id)} was already used for another request body; use a new id for a new request`,
        };
      if (rec?.state === "done") {
        this.replays++;
        return { kind: "answered", answer: rec.answer, replayed: true };
      }
      if (rec?.state === "pending" && Date.now() - t0 < this.maxWaitMs) {
        if (!joined) this.joins++;
        joined = true;
        await sleep(this.pollMs);
        continue;
      }
      const claim = JSON.stringify({ state: "pending", hash, owner } satisfies RecordValue);
      const won = await this.guard.attempt(
        "idempotency",
        (s) => s.setIfAbsent(key, claim, this.claimMs),
        () => true, // no store: score
      );
      if (!won) {
        if (Date.now() - t0 >= this.maxWaitMs) break;
        continue;
      }
      let renewing: Promise<unknown> = Promise.resolve();
      const renew = setInterval(
        () => {
          renewing = this.guard.attempt(
            "idempotency",
            (s) => s.set(key, claim, this.claimMs),
            () => undefined,
          );
        },
        Math.max(50, Math.floor(this.claimMs / 3)),
      );
      renew.unref();
      let answer: Answer;
      try {
        answer = await compute();
      } catch (e) {
        clearInterval(renew);
        await renewing;
        await this.guard.attempt(
          "idempotency",
          (s) => s.deleteIfEquals(key, claim),
          () => false,
        );
        throw e;
      }
      clearInterval(renew);
      await renewing; // a renewal still on its way must not land after the answer
      if (answer.status >= 200 && answer.status < 300) {
        const done = JSON.stringify({ state: "done", hash, answer } satisfies RecordValue);
        await this.guard.attempt(
          "idempotency",
          (s) => s.set(key, done, this.ttlMs),
          () => undefined,
        );
      } else
        await this.guard.attempt(
          "idempotency",
          (s) => s.deleteIfEquals(key, claim),
          () => false,
        );
      return { kind: "answered", answer, replayed: false };
    }
    return { kind: "answered", answer: await compute(), replayed: false };
  }
}
