import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { writeBundle } from "../../src/lib/files/file-bundle";
import { fileEntry } from "../../src/server/core/artifacts/bundle-paths";
import { trialResultBundle } from "../../src/server/core/artifacts/trial-results";
import type { Db } from "../../src/server/core/db/client";
import { QUEUE_NAME, TRANSFER_QUEUE_NAME } from "../../src/server/core/jobs/job-catalog";
import { sendImageJob } from "../../src/server/core/jobs/image-jobs";
import type { JobQueue } from "../../src/server/core/jobs/job-queue";
import { studyPreflightJob, trialRunJob } from "../../src/server/core/jobs/study-jobs";
import { connectRedis } from "../../src/server/core/redis/connection";
import { createSnapshot } from "../../src/server/core/snapshots/snapshot-store";
import { dataDirPaths } from "../../src/server/core/storage/data-dir";
import { createQueueWorker } from "../../worker/queue-worker";
import { createTransferWorker } from "../../worker/transfer-worker";
import { tempDir } from "./temp";

/**
 * A worker on another host as the worker API sees it: studies and trials seeded in the dashboard's database
 * (a snapshot, a captured test file, an image id, manifests), their jobs queued as the dashboard queues them,
 * and taken by the product's BullMQ worker, which holds them: the lease is the job id and the lock token
 * BullMQ gave it (read where BullMQ keeps it, so it is the same for any version of the product).
 */
export type Lease = { jobId: string; lock: string };
export const leaseHeaders = (lease: Lease | null): Record<string, string> =>
  lease ? { "x-invariant-job": lease.jobId, "x-invariant-job-lock": lease.lock } : {};
export type SeededStudy = Awaited<ReturnType<typeof seedStudy>>;

/** A project with its snapshot, a study on it with one captured test file and an image, and trials. */
export async function seedStudy(
  app: { db: Db; dataDir: string },
  name: string,
  trials: { state: string }[],
  studyState = "running",
) {
  const projectDir = tempDir(`hostile-${name}`);
  fs.mkdirSync(path.join(projectDir, "src"));
  fs.writeFileSync(path.join(projectDir, "src", "a.js"), `export const project = "${name}";\n`);
  const project = await app.db.project.create({ data: { name, hostPath: projectDir } });
  const { manifest } = await createSnapshot({ projectRoot: projectDir, projectId: project.id, dataDir: app.dataDir });
  await app.db.snapshot.create({ data: { id: manifest.id, projectId: project.id, fileCount: 1, bytes: 30 } });
  const testFile = Buffer.from(`// ${name}'s secret test\n`);
  const sha256 = createHash("sha256").update(testFile).digest("hex");
  const image = `sha256:${randomBytes(32).toString("hex")}`;
  const study = await app.db.study.create({
    data: {
      projectId: project.id,
      title: name,
      taskPrompt: "Fix it.",
      testCommand: "node --test",
      snapshotId: manifest.id,
      imageId: image,
      state: studyState,
      testFiles: JSON.stringify([{ path: "test/a.test.js", sha256, bytes: testFile.length, role: "test" }]),
    },
  });
  const dir = dataDirPaths(app.dataDir).testFiles(study.id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, sha256), testFile);
  const configuration = await app.db.configuration.create({
    data: { studyId: study.id, position: 0, model: "hostile-hello", reasoningEffort: "low" },
  });
  const rows = [];
  for (const trial of trials) {
    const row = await app.db.trial.create({
      data: { studyId: study.id, configurationId: configuration.id, state: trial.state },
    });
    await app.db.trial.update({
      where: { id: row.id },
      data: { manifest: JSON.stringify(manifestFor({ study, row, sha256, image, snapshotId: manifest.id })) },
    });
    rows.push(row);
  }
  return { project, study, snapshotId: manifest.id, sha256, image, trials: rows };
}

function manifestFor(o: {
  study: { id: string; projectId: string };
  row: { attempt: number };
  sha256: string;
  image: string;
  snapshotId: string;
}) {
  return {
    version: 1,
    study: { id: o.study.id, projectId: o.study.projectId },
    environment: { versionId: null, version: null, imageId: o.image, imageDigest: null },
    snapshot: { id: o.snapshotId, files: 1, bytes: 30 },
    configuration: {
      harness: "codex",
      model: "hostile-hello",
      reasoningEffort: "low",
      instructions: "",
      overrides: [],
      command: null,
    },
    taskPrompt: "Fix it.",
    testCommand: "node --test",
    junitPath: null,
    testFiles: [{ path: "test/a.test.js", sha256: o.sha256, bytes: 20, role: "test" }],
    limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 256, network: "none", allowHostedTools: false },
    concurrency: 1,
    agentTimeoutSec: 60,
    evalTimeoutSec: 60,
    tokenBudget: 100_000,
    attempt: o.row.attempt,
  };
}

/** The product's BullMQ worker taking trial, preflight and image jobs and holding them until closed. */
export function startJobTaker(options: { redisUrl: string; queue: Pick<JobQueue, "enqueue"> }) {
  const { queue } = options;
  const redis = connectRedis({ url: options.redisUrl, name: "job-taker" });
  const held = new Set<string>();
  let release = () => undefined as void;
  const holding = new Promise<void>((resolve) => (release = resolve));
  const hold = (name: string) => ({
    name,
    run: async (data: unknown) => {
      const { trialId, imageId, studyId } = data as { trialId?: string; imageId?: string; studyId?: string };
      held.add(name === sendImageJob.name ? `image:${imageId}` : trialId ? `trial:${trialId}` : `preflight:${studyId}`);
      await holding;
      return name === sendImageJob.name
        ? { bytes: 0 }
        : name === trialRunJob.name
          ? { state: "error" }
          : { status: "refused" };
    },
  });
  const taker = createQueueWorker({
    redisUrl: options.redisUrl,
    dataDir: tempDir("job-taker"),
    concurrency: 16,
    version: "test",
    floors: { diskFreeBytes: 0, memoryAvailableBytes: 0 },
    log: () => undefined,
    handlers: new Map([trialRunJob.name, studyPreflightJob.name].map((name) => [name, hold(name)])),
    context: { workerId: "job-taker", log: () => undefined },
    onSlotsChanged: () => undefined,
  });
  void taker.worker.run();
  // image.send jobs go to the transfer queue (worker/transfer-worker.ts)
  const transfer = createTransferWorker({
    redisUrl: options.redisUrl,
    version: "test",
    log: () => undefined,
    handlers: new Map([[sendImageJob.name, hold(sendImageJob.name)]]),
    context: { workerId: "job-taker", log: () => undefined },
    handsBack: () => false,
    concurrency: 16,
  });
  transfer.run();

  /** The trial's job as the dashboard queues it, taken from the real queue by the hostile worker: its lease. */
  async function takeTrialJob(seeded: SeededStudy, index: number): Promise<Lease> {
    const trial = seeded.trials[index];
    if (!trial) throw new Error("no such trial");
    const jobId = `trial-${trial.id}-1`;
    await queue.enqueue({
      job: trialRunJob,
      jobId,
      data: {
        studyId: seeded.study.id,
        projectId: seeded.project.id,
        snapshotId: seeded.snapshotId,
        image: seeded.image,
        testCommand: "node --test",
        junitPath: null,
        testFiles: [{ path: "test/a.test.js", sha256: seeded.sha256, bytes: 20, role: "test" }],
        network: "none",
        limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 256 },
        evalTimeoutMs: 60_000,
        trialId: trial.id,
        attempt: 1,
        prompt: "Fix it.",
        harness: { kind: "codex", model: "hostile-hello", reasoningEffort: "low" },
        agentTimeoutMs: 60_000,
      },
    });
    return take(jobId, `trial:${trial.id}`);
  }

  /** The lease the worker got when it took the job: the job id and its BullMQ lock token (read where BullMQ keeps it). */
  async function take(jobId: string, heldAs: string): Promise<Lease> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const queueName = heldAs.startsWith("image:") ? TRANSFER_QUEUE_NAME : QUEUE_NAME;
      const lock = held.has(heldAs) ? await redis.get(`bull:${queueName}:${jobId}:lock`) : null;
      if (lock) return { jobId, lock };
      if (Date.now() > deadline) throw new Error(`the hostile worker did not get job ${jobId} (${heldAs})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The study's preflight job as the dashboard queues it, taken: its lease. */
  async function takePreflightJob(seeded: SeededStudy): Promise<Lease> {
    const jobId = `preflight-${seeded.study.id}`;
    await queue.enqueue({ job: studyPreflightJob, jobId, data: checksOf(seeded) });
    return take(jobId, `preflight:${seeded.study.id}`);
  }

  return {
    take,
    takeTrialJob,
    takePreflightJob,
    async close() {
      release();
      await taker.worker.close(true);
      await transfer.worker.close(true);
      redis.disconnect();
    },
  };
}

/** What a study's job carries about its checks. */
function checksOf(seeded: SeededStudy) {
  return {
    studyId: seeded.study.id,
    projectId: seeded.project.id,
    snapshotId: seeded.snapshotId,
    image: seeded.image,
    testCommand: "node --test",
    junitPath: null,
    testFiles: [{ path: "test/a.test.js", sha256: seeded.sha256, bytes: 20, role: "test" as const }],
    network: "none" as const,
    limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 256 },
    evalTimeoutMs: 60_000,
  };
}

/** A result bundle as a worker sends it: one changed file and the finish report naming the trial and workspace. */
export function resultBody(o: {
  trialId: string;
  studyId: string;
  snapshotId: string;
  workspaceId: string;
  content: string;
}) {
  const tree = tempDir("hostile-result");
  fs.mkdirSync(path.join(tree, "src"));
  fs.writeFileSync(path.join(tree, "src", "a.js"), o.content);
  const finished = {
    type: "trial.finished",
    studyId: o.studyId,
    trialId: o.trialId,
    data: {
      error: null,
      verdict: null,
      exitCode: 0,
      agentSeconds: 1,
      evalSeconds: 1,
      commandsRun: 0,
      threadId: null,
      harnessVersion: null,
      committedImageId: null,
      workspaceId: o.workspaceId,
      diff: null,
      attempt: 1,
      state: "succeeded",
      evaluationFile: null,
      usage: null,
    },
  };
  const bundle = trialResultBundle({
    dataDir: tempDir("hostile-remote-data"),
    trialId: o.trialId,
    attempt: 1,
    snapshotId: o.snapshotId,
    workspacePath: null,
    finished,
  });
  async function* withTree() {
    yield await fileEntry({ root: tree, rel: "src/a.js", as: "tree/src/a.js" });
    yield* bundle;
  }
  return Readable.toWeb(Readable.from(writeBundle(withTree()))) as unknown as BodyInit;
}
