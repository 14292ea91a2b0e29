/**
 * An error caused by the user's input (spec, flags, files), not by rewardkit: the CLI prints its message and
 * exits 1, the server answers 400. Everything else is an internal error (exit 2, HTTP 500).
 */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}
