import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // builds dist/ first when src/ changed since the last build: the worker pool and the CLI tests run dist/
    globalSetup: ["test/global-setup.ts"],
    // removes each test file's temporary folders (helpers.ts `tmp()`) after it
    setupFiles: ["test/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
