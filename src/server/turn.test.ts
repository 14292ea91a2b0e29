import { describe, expect, it } from "vitest";
import { nextTurn } from "./turn.js";

describe("nextTurn", () => {
  it("every caller in one poll phase shares one turn; their continuations run together, before later I/O callbacks", async () => {
    const a = nextTurn();
    const b = nextTurn();
    expect(a).toBe(b);
    const order: string[] = [];
    // an immediate queued after the turn's: a request read later in the same phase runs after both continuations
    const later = new Promise<void>((r) =>
      setImmediate(() => {
        order.push("later");
        r();
      }),
    );
    await Promise.all([a.then(() => order.push("first")), b.then(() => order.push("second")), later]);
    expect(order).toEqual(["first", "second", "later"]);
    // the next call opens a new turn
    const c = nextTurn();
    expect(c).not.toBe(a);
    await c;
  });
});
