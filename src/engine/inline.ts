import type { ComponentResult } from "../core/types.js";
import { unscorable } from "../core/types.js";
import type { VerifierInput, VerifyFn } from "../verifiers/types.js";

/**
 * Runs an inline verifier: a throw becomes `worker_error`; a promise from a verifier that does not time itself
 * (`selfTimed`) is raced against `timeoutMs` and yields `timeout` past it (its work cannot be stopped on this thread,
 * but the rollout no longer waits for it). With `abortable`, the verifier gets `input.signal`, aborted at the deadline,
 * so an HTTP verifier stops its requests and retries (made only then: an AbortController costs microseconds).
 */
export function runInline(
  fn: VerifyFn,
  input: VerifierInput,
  timeoutMs: number,
  selfTimed: boolean,
  abortable = false,
): Promise<ComponentResult> {
  const crashed = (e: unknown): ComponentResult =>
    unscorable("worker_error", { error: String((e as Error)?.message ?? e) });
  let out: ComponentResult | Promise<ComponentResult>;
  const deadline = abortable ? new AbortController() : undefined;
  try {
    out = fn(deadline ? { ...input, signal: deadline.signal } : input);
  } catch (e) {
    return Promise.resolve(crashed(e));
  }
  if (!(out instanceof Promise)) return Promise.resolve(out);
  const settled = out.catch(crashed);
  if (selfTimed) return settled;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ComponentResult>((resolve) => {
    timer = setTimeout(() => {
      deadline?.abort();
      resolve(unscorable("timeout", { timeoutMs }));
    }, timeoutMs);
  });
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
