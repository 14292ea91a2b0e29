// Vitest setup file (vitest.config.ts `setupFiles`), run in every test file: the temporary folders the file made
// with helpers.ts `tmp()` are removed after its last test, so a test run leaves no `rewardkit-test-*` behind.
import { afterAll } from "vitest";
import { removeTmps } from "./helpers.js";

afterAll(removeTmps);
