import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory.js";
import { StoreGuard } from "../store/guard.js";
import { fleetScript } from "./fleet.test-helper.js";

describe("performance schedules shared by a fleet (FleetSchedules)", () => {
  it("three replicas on one store move the threshold at the same steps as one server, from their results together", async () => {
    const store = new MemoryStore();
    await fleetScript([new StoreGuard(store), new StoreGuard(store), new StoreGuard(store)]);
  });
});

describe("the control: replicas that do not share a store", () => {
  it("diverge from one server (each sees a third of the results), which is what the shared state prevents", async () => {
    await expect(
      fleetScript([
        new StoreGuard(new MemoryStore()),
        new StoreGuard(new MemoryStore()),
        new StoreGuard(new MemoryStore()),
      ]),
    ).rejects.toThrow();
  });
});
