import { UserError } from "../core/errors.js";
import { formatProblem } from "../core/problem.js";
import type { Problem } from "../core/problem.js";

export { formatPath, formatProblem } from "../core/problem.js";
export type { Problem } from "../core/problem.js";

/**
 * A spec that cannot be used. Carries every problem found (not just the first), each with file, line and
 * field path. The CLI prints one per line and exits 1.
 */
export class SpecError extends UserError {
  constructor(readonly problems: Problem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.name = "SpecError";
  }
}
