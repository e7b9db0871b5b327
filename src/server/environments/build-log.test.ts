import { describe, expect, it } from "vitest";
import { createDockerRuntime } from "../runtime/docker-runtime";
import type { EventInput } from "../events/event-stream";
import { prepareEnvironment } from "./environment-builder";

/**
 * Issue 15 item 5, for environment builds: a build command printing endlessly must not flood the event
 * stream (and the database that records it). The real builder on the real Docker engine and base image.
 */
describe("an environment build's log", () => {
  it("is published in bounded messages and stops at its limit with a marker", async () => {
    const published: EventInput[] = [];
    const result = await prepareEnvironment(
      {
        runtime: createDockerRuntime(),
        codex: null,
        publish: (event) => Promise.resolve(published.push(event)),
        worker: { id: "build-log-test", host: "test", pid: process.pid },
        active: new Set(),
        flushMs: 10,
        logLimits: { maxTotalChars: 1024 * 1024 },
      },
      {
        projectId: "p-build-log",
        versionId: "v-build-log",
        kind: "command",
        fromImage: "invariant-base:bookworm",
        // output as fast as it goes for 6 s, then a failure, so nothing is committed
        command: "timeout 6 yes; exit 3",
        repository: "invariant-test-build-log",
        tag: "never",
        network: "none",
        limits: { cpus: 1, memoryBytes: 512 * 1024 * 1024, swapBytes: 512 * 1024 * 1024, pids: 64 },
        timeoutMs: 120_000,
      },
    );
    expect(result.status).toBe("failed");
    const texts = published.flatMap((event) => (event.type === "environment.log" ? [event.data.text] : []));
    const total = texts.reduce((sum, text) => sum + text.length, 0);
    // (without limits: messages of hundreds of KiB every flush, megabytes a second into Redis and SQLite)
    expect(Math.max(...texts.map((text) => text.length))).toBeLessThan(70 * 1024);
    expect(total).toBeLessThan(1024 * 1024 + 4096);
    expect(texts.join("")).toMatch(/this build log reached its limit of 1 MiB; further output is left out/);
    expect(texts.at(-1)).toMatch(/characters of output were left out of this log\]\n$/);
  });
});
