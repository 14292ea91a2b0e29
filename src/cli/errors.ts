/** A usage or input error: the CLI prints the message and exits 1 (exit 2 is for internal errors). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
