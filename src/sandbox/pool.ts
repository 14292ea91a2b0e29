import { SlotPool } from "../core/slots.js";
import { availableParallelism } from "node:os";

/**
 * The sandbox slots: at most `size` runs execute at once; each gets its own slot number, which the local backend
 * turns into a uid (`uidBase + slot`) so that `prlimit --nproc` counts only that run's processes. The engine's
 * other work goes on while runs queue.
 */
export class SandboxPool extends SlotPool {}

let shared: SandboxPool | undefined;

/**
 * The process-wide pool (one per engine, so slot uids never collide between components). The first caller's
 * size wins, default: available parallelism.
 */
export function sharedPool(size?: number): SandboxPool {
  shared ??= new SandboxPool(Math.max(1, size ?? availableParallelism()));
  return shared;
}
