import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "worker/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // integration tests drive real Docker builds and Codex runs; a busy 2-core CI machine needs headroom
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    // three files at a time on 2 cores: most integration files wait on Docker, Redis, npm or a heartbeat, not on
    // the CPU (the CPU was idle half the time with two); docs/benchmarks.md "Test suite" has the figures
    maxWorkers: 3,
  },
});
