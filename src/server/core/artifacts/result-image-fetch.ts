import { randomBytes } from "node:crypto";
import { Transform, type Readable } from "node:stream";
import { AppError } from "../errors/app-error";
import { sendImageJob, sendsImage, type SendImageJob } from "../jobs/image-jobs";
import type { JobQueue } from "../jobs/job-queue";
import type { ContainerRuntime } from "../runtime/container-runtime";
import type { WorkerInfo } from "../redis/worker-registry";
import { asError, messageOf } from "../../../shared/error-message";
import type { ImageRegistry } from "../runtime/registry-transfer";
import { pullPushedImage } from "./result-image-pull";

/** How long a fetch may take in all (a large image over a slow link), how long the job may wait for its worker. */
const TIMEOUT_MS = 30 * 60_000;
const PICKUP_MS = 2 * 60_000;
const POLL_MS = 500;
/** An upload larger than this is cut off (no agent image is this large; a runaway stream must not fill the disk). */
const MAX_BYTES = 32 * 1024 ** 3;

export interface ResultImageFetchDeps {
  runtime: Pick<ContainerRuntime, "inspectImage" | "loadImage" | "listImages" | "removeImage" | "pullImage">;
  /** The registry results are pulled from (a worker pushes there instead of uploading); null: docker save only. */
  registry?: ImageRegistry | null;
  queue: Pick<JobQueue, "enqueue" | "state" | "failedReason" | "remove">;
  liveWorkers: () => Promise<WorkerInfo[]>;
  log: (message: string) => void;
  timeoutMs?: number;
  pickupMs?: number;
  maxBytes?: number;
}

export type ResultImageRequest = Omit<SendImageJob, "registry">;

interface Pending {
  request: ResultImageRequest;
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
  settled: boolean;
  receiving: boolean;
  /** The image.send job asking for it: only its worker's upload (a lease on that job) is taken. */
  jobId: string | null;
  /** Cuts off an upload in progress (the fetch timed out). */
  cancel: ((error: Error) => void) | null;
}

const short = (imageId: string) => imageId.replace(/^sha256:/, "").slice(0, 12);
const WHAT_ELSE = "or start a private-copy session from the Sessions page (the trial's files are here).";

function refused(request: ResultImageRequest, why: string): AppError {
  return new AppError({
    code: "PRECONDITION_FAILED",
    message: `Could not fetch trial ${request.trialId}'s result image ${short(request.imageId)} from ${request.host}: ${why}`,
  });
}

function createPending(request: ResultImageRequest): Pending {
  let resolve = () => undefined as void;
  let reject = (_error: Error) => undefined as void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  const entry: Pending = {
    request,
    promise,
    resolve,
    reject,
    settled: false,
    receiving: false,
    jobId: null,
    cancel: null,
  };
  promise.then(
    () => (entry.settled = true),
    () => (entry.settled = true),
  );
  return entry;
}

/** The upload, counted and cut off past `maxBytes`, when its sender goes away, or when `cancel` is called. */
function limited(source: Readable, maxBytes: number, entry: Pending): Transform {
  let bytes = 0;
  let ended = false;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) done(new Error(`the upload passed ${maxBytes / 1024 ** 3} GiB and was cut off`));
      else done(null, chunk);
    },
  });
  entry.cancel = (error) => counter.destroy(error);
  source.on("end", () => (ended = true));
  source.on("error", (error) => counter.destroy(error));
  source.on("close", () => {
    if (!ended) counter.destroy(new Error("the worker's upload was cut off before its end"));
  });
  return source.pipe(counter);
}

/** Follows the job until the upload arrived, it failed, nobody took it, or the fetch timed out. */
async function watchJob(deps: ResultImageFetchDeps, entry: Pending, jobId: string): Promise<void> {
  const timeoutMs = deps.timeoutMs ?? TIMEOUT_MS;
  const pickupMs = deps.pickupMs ?? PICKUP_MS;
  const started = Date.now();
  const { request } = entry;
  while (!entry.settled) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (entry.settled) return;
    const state = await deps.queue.state(jobId);
    const waited = Date.now() - started;
    if (state === "failed")
      throw refused(request, `${(await deps.queue.failedReason(jobId)) ?? "its worker could not send it"}`);
    if (state === "missing") throw refused(request, "the request left the job queue before the image arrived.");
    if (state === "completed" || state === "active") {
      if (waited > timeoutMs) throw refused(request, `it did not arrive within ${timeoutMs / 60_000} minutes.`);
      continue;
    }
    if (waited > pickupMs)
      throw refused(
        request,
        `no worker of ${request.host} took the request within ${pickupMs / 1000} s (its transfer slot busy sending another image, or a worker older than the dashboard, which does not take these: upgrade it). Try again, ${WHAT_ELSE}`,
      );
  }
}

/** Asks a worker of the image's host for it, then waits for its upload (or why it did not come). */
async function run(deps: ResultImageFetchDeps, entry: Pending): Promise<void> {
  const { request } = entry;
  const holders = (await deps.liveWorkers()).filter((w) => w.remoteAs !== null && sendsImage(request, w));
  if (holders.length === 0)
    throw refused(
      request,
      `no worker of that host is online. Start its worker there (invariant-web worker --dashboard-url …) and continue again, ${WHAT_ELSE}`,
    );
  const jobId = `image-send-${randomBytes(6).toString("hex")}`;
  entry.jobId = jobId;
  const data: SendImageJob = { ...request, registry: deps.registry?.address ?? null };
  await deps.queue.enqueue({ job: sendImageJob, data, jobId, keep: 100 });
  try {
    await Promise.race([entry.promise, watchJob(deps, entry, jobId)]);
  } catch (error) {
    entry.cancel?.(error as Error);
    throw error;
  } finally {
    // a request no worker has taken is withdrawn (a running one ends on its own)
    await deps.queue.remove(jobId);
  }
}

/** The fetch waiting for this image from this job, now receiving; refused when there is none. */
function claim(pending: Map<string, Pending>, options: { imageId: string; jobId: string }): Pending {
  const entry = pending.get(options.imageId);
  if (!entry || entry.settled)
    throw new AppError({
      code: "CONFLICT",
      message: `The dashboard is not waiting for image ${short(options.imageId)} (the session that asked for it ended or gave up).`,
    });
  if (entry.jobId !== options.jobId)
    throw new AppError({
      code: "FORBIDDEN",
      message: `Image ${short(options.imageId)} was asked for with job ${entry.jobId ?? "(none yet)"}, not with job ${options.jobId}.`,
    });
  if (entry.receiving)
    throw new AppError({ code: "CONFLICT", message: `Image ${short(options.imageId)} is being received already.` });
  entry.receiving = true;
  return entry;
}

/**
 * "Continue a result" of a trial whose committed image is on a worker on another host: the web process
 * asks that worker for it (an image.send job only it, or a worker on its host, takes), the worker streams
 * `docker save` to the worker API, and `receive` loads it into this host's engine, keeping it only when
 * it is exactly the image asked for. One fetch per image at a time; a second caller waits for the first.
 */
export function createResultImageFetcher(deps: ResultImageFetchDeps) {
  const pending = new Map<string, Pending>();

  /** Loads the upload; keeps nothing but the image asked for, and only when it is exactly that image. */
  async function load(entry: Pending, source: Readable): Promise<void> {
    const { imageId } = entry.request;
    const before = new Set((await deps.runtime.listImages({})).map((image) => image.id));
    const loaded = await deps.runtime.loadImage(limited(source, deps.maxBytes ?? MAX_BYTES, entry));
    const ids = await Promise.all(loaded.map(async (name) => (await deps.runtime.inspectImage(name))?.id ?? name));
    const strays = ids.filter((id) => id !== imageId && !before.has(id));
    if (ids.includes(imageId) && strays.length === 0 && (await deps.runtime.inspectImage(imageId))?.id === imageId)
      return;
    for (const id of [...strays, ...(ids.includes(imageId) ? [imageId] : [])])
      await deps.runtime.removeImage(id).catch(() => undefined);
    throw new Error(
      `the worker sent ${ids.length === 0 ? "nothing Docker could load" : `other images (${ids.map(short).join(", ")})`}, not ${short(imageId)}; nothing of it was kept.`,
    );
  }

  return {
    /** Resolves once the image is in this host's engine; rejects with an AppError saying what was wrong and what to do. */
    async fetch(request: ResultImageRequest): Promise<void> {
      if ((await deps.runtime.inspectImage(request.imageId))?.id === request.imageId) return;
      const running = pending.get(request.imageId);
      if (running) return running.promise;
      const entry = createPending(request);
      entry.promise.catch(() => undefined);
      pending.set(request.imageId, entry);
      const started = Date.now();
      try {
        await run(deps, entry);
        deps.log(
          `sessions: fetched image ${short(request.imageId)} from ${request.host} in ${Date.now() - started} ms`,
        );
      } catch (error) {
        const failure = asError(error);
        entry.reject(failure);
        throw failure;
      } finally {
        pending.delete(request.imageId);
      }
    },

    /**
     * A worker pushed the image to the registry (POST /api/worker/images/<id>/pushed) under its lease: the same
     * checks as an upload, then this engine pulls it by digest in the background (only the layers it lacks)
     * and keeps it only when it is exactly the image asked for (result-image-pull.ts).
     */
    receivePushed(options: { imageId: string; reference: string; worker: string; jobId: string }): { pulling: true } {
      const entry = claim(pending, options);
      void pullPushedImage({ ...deps, registry: deps.registry ?? null }, { ...options, request: entry.request }).then(
        () => entry.resolve(),
        (error: unknown) => entry.reject(asError(error)),
      );
      return { pulling: true };
    },

    /**
     * An upload from a worker (POST /api/worker/images/<id>) under its lease on the image.send job `jobId`:
     * refused unless a fetch waits for that image and asked for it with that job.
     */
    async receive(options: {
      imageId: string;
      source: Readable;
      worker: string;
      jobId: string;
    }): Promise<{ imageId: string }> {
      const entry = claim(pending, options);
      try {
        await load(entry, options.source);
      } catch (error) {
        const failure = refused(
          entry.request,
          `loading what worker "${options.worker}" sent failed: ${messageOf(error)}`,
        );
        entry.reject(failure);
        throw failure;
      }
      entry.resolve();
      return { imageId: options.imageId };
    },
  };
}

export type ResultImageFetcher = ReturnType<typeof createResultImageFetcher>;
