import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/harness/global-setup.ts"],
    setupFiles: ["test/harness/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores: one file per core keeps PGlite start-up from starving the HTTP tests.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
