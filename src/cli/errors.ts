import { UserError } from "../core/errors.js";

/** A usage error (bad flag or flag value): the CLI prints the message and exits 1. */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
