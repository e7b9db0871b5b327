import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { redisUrlFor, tempDir } from "../../../../test/support/temp";
import { createJobQueue } from "../jobs/job-queue";
import { connectRedis } from "../redis/connection";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { listWorkers, removeHeartbeat, writeHeartbeat, type WorkerInfo } from "../redis/worker-registry";
import { createResultImageFetcher } from "./result-image-fetch";

/**
 * The web side of moving a committed trial image from a worker on another host, on the real Docker engine
 * and Redis: what an upload must be to be kept. The test plays the worker's upload with a real
 * `docker save` stream (test/remote-worker.test.ts runs the whole way with a real remote worker).
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 15);
const runtime = createDockerRuntime({ hostCaBundle: null });
const queue = createJobQueue({ redisUrl: REDIS_URL });
const redis = connectRedis({ url: REDIS_URL, name: "result-image-fetch-test" });
const HOST = `fetch-test-${randomBytes(3).toString("hex")}`;
const worker: WorkerInfo = {
  id: `${HOST}-1`,
  host: HOST,
  pid: 1,
  concurrency: 1,
  version: "test",
  startedAt: new Date().toISOString(),
  lastSeen: new Date().toISOString(),
  remoteAs: "far-host",
  capacity: null,
};
const made: string[] = [];

/** A tiny image of its own (one file), saved to a tar and removed from the engine again: "only on the other host". */
function imageElsewhere(name: string): { id: string; tar: string } {
  const dir = tempDir(`image-${name}`);
  fs.writeFileSync(path.join(dir, "tool.txt"), `${name} ${randomBytes(8).toString("hex")}\n`);
  const imported = spawnSync(
    "sh",
    ["-c", `tar -C ${dir} -c tool.txt | docker import -c 'LABEL invariant.test=fetch' -`],
    {
      encoding: "utf8",
    },
  );
  const id = imported.stdout.trim();
  expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
  const tar = path.join(dir, "image.tar");
  expect(spawnSync("docker", ["save", "-o", tar, id]).status).toBe(0);
  expect(spawnSync("docker", ["rmi", id]).status).toBe(0);
  made.push(id);
  return { id, tar };
}
const onHost = (id: string) => spawnSync("docker", ["image", "inspect", id]).status === 0;
/** The image.send jobs the fetcher queued: an upload is taken only under the lease of the one it asked with. */
const asked: string[] = [];
const fetcher = createResultImageFetcher({
  runtime,
  queue: {
    ...queue,
    enqueue: async (options) => {
      asked.push(options.jobId ?? "");
      return queue.enqueue(options);
    },
  },
  liveWorkers: () => listWorkers(redis),
  log: () => undefined,
});
const request = (imageId: string) => ({ imageId, worker: null, host: HOST, trialId: "trial-1" });
/** Until the fetch is waiting for its upload. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

beforeAll(async () => {
  await writeHeartbeat(redis, worker, 120_000);
});

afterAll(async () => {
  await removeHeartbeat(redis, worker.id);
  for (const id of made) spawnSync("docker", ["rmi", "-f", id]);
  await queue.close();
  redis.disconnect();
});

describe("fetching a trial's result image from a worker on another host", () => {
  it("keeps an upload that is exactly the image asked for, and then needs no second fetch", async () => {
    const wanted = imageElsewhere("wanted");
    const fetching = fetcher.fetch(request(wanted.id));
    await settle();
    await expect(
      fetcher.receive({
        imageId: wanted.id,
        source: fs.createReadStream(wanted.tar),
        worker: "far-host",
        jobId: asked.at(-1) ?? "",
      }),
    ).resolves.toEqual({ imageId: wanted.id });
    await fetching;
    expect(onHost(wanted.id)).toBe(true);
    // here now: resolves without asking anyone (no upload is awaited)
    await fetcher.fetch(request(wanted.id));
    await expect(
      fetcher.receive({
        imageId: wanted.id,
        source: fs.createReadStream(wanted.tar),
        worker: "far-host",
        jobId: asked.at(-1) ?? "",
      }),
    ).rejects.toThrow(/not waiting for image [0-9a-f]{12}/);
  });

  it("refuses and removes an upload of another image; refuses uploads nobody asked for", async () => {
    const wanted = imageElsewhere("asked-for");
    const other = imageElsewhere("sent-instead");
    const fetching = fetcher.fetch(request(wanted.id));
    fetching.catch(() => undefined);
    await settle();
    const sent = fetcher.receive({
      imageId: wanted.id,
      source: fs.createReadStream(other.tar),
      worker: "far-host",
      jobId: asked.at(-1) ?? "",
    });
    await expect(sent).rejects.toThrow(
      new RegExp(
        `loading what worker "far-host" sent failed: the worker sent other images \\(${other.id.slice(7, 19)}\\)`,
      ),
    );
    await expect(fetching).rejects.toThrow(/Could not fetch trial trial-1's result image .* nothing of it was kept/);
    expect(onHost(other.id)).toBe(false);
    expect(onHost(wanted.id)).toBe(false);
    await expect(
      fetcher.receive({
        imageId: other.id,
        source: fs.createReadStream(other.tar),
        worker: "far-host",
        jobId: asked.at(-1) ?? "",
      }),
    ).rejects.toThrow(/The dashboard is not waiting for image/);
    expect(onHost(other.id)).toBe(false);
  });

  it("refuses at once when no worker of the image's host is online", async () => {
    const gone = { ...request(`sha256:${randomBytes(32).toString("hex")}`), host: "a-host-with-no-worker" };
    await expect(fetcher.fetch(gone)).rejects.toThrow(
      /from a-host-with-no-worker: no worker of that host is online\. Start its worker there .* or start a private-copy session/,
    );
  });
});
