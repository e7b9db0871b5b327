import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, ROOT, type Launched } from "./support/launch";
import { startLocalRegistry, type LocalRegistry } from "./support/local-registry";
import { remoteStack, type RemoteWorker } from "./support/remote-stack";
import { startSecondEngine, startTcpRedis, type SecondEngine } from "./support/second-engine";
import { calendarProject, FAKE_KEY, scriptsDir, startMock } from "./support/study-harness";
import { tempDir } from "./support/temp";

/**
 * Issue 29, point 2: with a registry (`--registry` on the dashboard and the worker), images move through
 * it instead of `docker save` over HTTP. A local registry (Debian's docker-registry) sits behind a proxy
 * that counts the bytes; the second engine reaches it from its own network namespace. The environment
 * image goes up once and is pulled by the remote worker's engine; "continue a result" of the remote trial
 * pushes only the trial's own layer (the registry has the rest) and the dashboard's engine pulls only that
 * layer (it has the rest); a second continue moves nothing.
 */
const TOOL_STEP = {
  kind: "run",
  command: "printf '#!/bin/sh\\necho calendar-tool-works\\n' > /tmp/calendar-tool && chmod +x /tmp/calendar-tool",
};
const script = JSON.parse(fs.readFileSync(path.join(ROOT, "mock-scripts", "calendar-fix-all.json"), "utf8")) as {
  steps: unknown[];
};
let redis: Awaited<ReturnType<typeof startTcpRedis>>;
let engine: SecondEngine;
let mock: Awaited<ReturnType<typeof startMock>>;
let registry: LocalRegistry;
let app: Launched;
let remote: RemoteWorker | null = null;
const stack = remoteStack({
  app: () => app,
  engine: () => engine,
  redisUrl: () => redis.url,
  remote: () => remote,
  remoteData: tempDir("registry-remote-data"),
});
const MiB = 1024 * 1024;

beforeAll(async () => {
  [redis, engine, mock] = await Promise.all([
    startTcpRedis(),
    startSecondEngine(),
    startMock(scriptsDir({ "calendar-fix-all": { ...script, steps: [TOOL_STEP, ...script.steps] } })),
  ]);
  registry = await startLocalRegistry({ engine });
  app = await launch({
    dataDir: tempDir("registry-web"),
    args: ["--redis-url", redis.url, "--registry", registry.address],
    env: { OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: mock.url, INVARIANT_WORKER_CONCURRENCY: "1" },
  });
}, 120_000);

afterAll(async () => {
  if (remote && remote.child.exitCode === null) remote.child.kill("SIGKILL");
  await app?.stop("SIGTERM");
  await engine?.stop();
  await registry?.stop();
  await redis?.stop();
  await mock?.close();
}, 60_000);

describe("images through a registry (a worker on another host, --registry on both sides)", () => {
  it("pulls the environment image by digest there, and a continued result moves only its own layer here", async () => {
    const token = await stack.workerTokenFile("registry-host");
    remote = stack.startRemoteWorker(token.file, ["--registry", registry.address]);
    const remoteId = await stack.remoteOnline();
    const projectId = await stack.readyProject(calendarProject());
    expect(await stack.call("system.imageTransport")).toEqual({ transport: "registry", registry: registry.address });

    // the trial runs on the remote worker: its engine pulls the environment image from the registry
    registry.reset();
    const done = await stack.withLocalPaused(async () => {
      const created = await stack.mutate<{ id: string }>("studies.create", {
        projectId,
        title: "Through a registry",
        taskPrompt: "Make the calendar tests pass.",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "test/calendar.test.js" }],
        concurrency: 1,
        configurations: [{ harness: "codex", model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 }],
      });
      return stack.until(
        "the study",
        () => stack.study(created.id),
        (s) => s.state === "done",
        300_000,
      );
    });
    const [trial] = done.trials;
    expect(trial).toMatchObject({ workerId: remoteId, state: "succeeded", verdict: { passed: 23, total: 23 } });
    const environment = registry.moved();
    const log = remote.log();
    expect(log).toMatch(
      /pulled image [0-9a-f]{12} from 127\.0\.0\.1:\d+ in \d+ ms \(\d+ layers pulled, 0 already here/,
    );
    expect(log).not.toMatch(/loaded image/); // no docker save of it
    expect(app.stderr()).toMatch(/pushed image [0-9a-f]{12} to 127\.0\.0\.1:\d+/);
    // every layer went up once and down once (compressed): the base image's hundreds of MiB
    expect(environment.up).toBeGreaterThan(50 * MiB);
    expect(environment.down).toBeGreaterThan(50 * MiB);
    console.log(
      `registry acceptance: environment image up ${(environment.up / MiB).toFixed(1)} MiB, down ${(environment.down / MiB).toFixed(1)} MiB`,
    );

    // continue the remote result here: the worker pushes it (only its own layer goes up), this engine pulls it
    const imageId = trial?.committedImageId ?? "";
    expect(stack.hostImageId(imageId)).toBe("");
    registry.reset();
    const fetching = await stack.startContinue(projectId, trial?.id ?? "");
    expect(fetching.state).toBe("starting");
    const running = await stack.until(
      "the continued session",
      () => stack.session(fetching.id),
      (s) => s.state !== "starting",
      180_000,
    );
    expect(running).toMatchObject({ state: "running", reason: null });
    expect(stack.hostImageId(imageId)).toBe(imageId); // the same image id after the registry
    const result = registry.moved();
    expect(remote.log()).toMatch(/pushed image [0-9a-f]{12} to 127\.0\.0\.1:\d+ in \d+ ms/);
    expect(remote.log()).not.toMatch(/sent image/);
    const pulled =
      /sessions: pulled image [0-9a-f]{12} from \S+ in \d+ ms \((\d+) layers pulled, (\d+) already here, ([\d.]+) MiB\)/.exec(
        app.stderr(),
      );
    expect(pulled?.[1]).toBe("1"); // the trial's own layer
    expect(Number(pulled?.[2])).toBeGreaterThan(0); // the environment's layers were here
    expect(result.down).toBeGreaterThan(0);
    expect(result.up + result.down).toBeLessThan(environment.up / 20); // no base layer moved again
    console.log(
      `registry acceptance: continue moved up ${(result.up / MiB).toFixed(2)} MiB, down ${(result.down / MiB).toFixed(2)} MiB`,
    );
    const seen = spawnSync("docker", ["exec", stack.sessionContainer(fetching.id), "/tmp/calendar-tool"], {
      encoding: "utf8",
    });
    expect(seen.stdout.trim()).toBe("calendar-tool-works");
    await stack.mutate("sessions.finish", { sessionId: fetching.id });

    // a second continue finds the image here: nothing crosses the registry
    registry.reset();
    const again = await stack.startContinue(projectId, trial?.id ?? "");
    expect(again.reason).toBeNull();
    await stack.until(
      "the second session",
      () => stack.session(again.id),
      (s) => s.state === "running",
      60_000,
    );
    expect(registry.moved()).toEqual({ up: 0, down: 0 });
    await stack.mutate("sessions.finish", { sessionId: again.id });
  }, 600_000);
});
