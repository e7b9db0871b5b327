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
        logLimits: { maxBatchChars: 16 * 1024, maxTotalChars: 128 * 1024 },
      },
      {
        projectId: "p-build-log",
        versionId: "v-build-log",
        kind: "command",
        fromImage: "invariant-base:bookworm",
        // 6.4 MB of output paced over a few seconds (so the limit is reached however busy the machine is
        // and however its chunks are batched), then a failure, so nothing is committed
        command: "for i in $(seq 400); do head -c 16000 /dev/zero | tr '\\0' y; sleep 0.01; done; exit 3",
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
    expect(Math.max(...texts.map((text) => text.length))).toBeLessThan(17 * 1024);
    expect(total).toBeLessThan(128 * 1024 + 4096);
    expect(texts.join("")).toMatch(/this build log reached its limit of 128 KiB; further output is left out/);
    expect(texts.at(-1)).toMatch(/characters of output were left out of this log\]\n$/);
  });
});
