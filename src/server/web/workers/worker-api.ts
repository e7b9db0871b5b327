import fsp from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { AppError } from "../../core/errors/app-error";
import type { BundleEntry } from "../../../lib/files/file-bundle";
import {
  dependencyArchive,
  dependencyArchiveStream,
  type DependencyArchiveMeta,
} from "../../core/artifacts/dependency-archive";
import { hasSnapshot, snapshotBundle } from "../../core/artifacts/snapshot-transfer";
import { dependenciesOf } from "../../core/dependencies/dependency-runtime";
import { receiveTrialResults } from "../../core/artifacts/trial-results";
import type { ResultImageFetcher } from "../../core/artifacts/result-image-fetch";
import type { RegistryPublisher, RegistryPush } from "../../core/artifacts/registry-publisher";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { LABEL } from "../../core/runtime/container-spec";
import { dataDirPaths } from "../../core/storage/data-dir";
import { readWorkspace } from "../../core/workspaces/workspace-store";
import { isFinishedTrial, type LeaseGrant } from "./job-leases";
import type { WorkerApiQueries } from "./worker-api.queries";

export interface WorkerApiDeps {
  dataDir: string;
  runtime: Pick<ContainerRuntime, "inspectImage" | "saveImage">;
  queries: WorkerApiQueries;
  /** Pushes environment images to the registry for workers to pull (absent or without a registry: docker save only). */
  registry?: Pick<RegistryPublisher, "status">;
  /** Where a committed trial image a session asked a worker for arrives (absent: nothing is waited for). */
  images?: Pick<ResultImageFetcher, "receive" | "receivePushed">;
}

const notFound = (message: string) => new AppError({ code: "NOT_FOUND", message });
const notYours = (grant: LeaseGrant, what: string) =>
  new AppError({
    code: "FORBIDDEN",
    message: `${what} is not part of job ${grant.jobId}, the job worker "${grant.worker.name}" named: a worker reads and delivers only what the jobs leased to it name.`,
  });

/** The installed dependencies the leased job's environment image names (its labels here), as one archive. */
async function dependencyMeta(deps: WorkerApiDeps, grant: LeaseGrant, dirId: string): Promise<DependencyArchiveMeta> {
  const labels = grant.image ? ((await deps.runtime.inspectImage(grant.image))?.labels ?? {}) : {};
  const named = dependenciesOf(labels);
  if (named?.dirId !== dirId) throw notYours(grant, `Dependency folder ${dirId}`);
  return dependencyArchive({ dataDir: deps.dataDir, dirId, outputs: named.outputs }).catch((error: unknown) => {
    throw notFound(`No installed dependencies ${dirId} on the dashboard: ${(error as Error).message}`);
  });
}

/** The environment image the leased job runs on, made by invariant-web and on this engine; refused otherwise. */
async function leasedImage(deps: WorkerApiDeps, grant: LeaseGrant, imageId: string): Promise<void> {
  if (grant.image !== imageId) throw notYours(grant, `Image ${imageId}`);
  const info = await deps.runtime.inspectImage(imageId);
  if (!info || info.id !== imageId)
    throw notFound(`No image ${imageId} on the dashboard host's Docker engine (referenced by id).`);
  if (!info.labels[LABEL.environment] && !info.labels[LABEL.run])
    throw new AppError({ code: "FORBIDDEN", message: `Image ${imageId} is not one invariant-web made.` });
}

/** Where the image the leased image.send job is for arrives; refused for any other image. */
function awaitedImages(deps: WorkerApiDeps, grant: LeaseGrant, imageId: string) {
  if (grant.sendsImage !== imageId) throw notYours(grant, `Sending image ${imageId}`);
  if (!deps.images) throw new AppError({ code: "CONFLICT", message: "This dashboard is not waiting for any image." });
  return deps.images;
}

/**
 * What a worker on another host may ask of the web process (transport: src/server/web/http/worker-endpoint.ts),
 * each call within the grant of a job leased to it (job-leases.ts): the artefacts that job names, by
 * content id, and the delivery of that job's results. Nothing here reads or changes anything else.
 */
export function createWorkerApi(deps: WorkerApiDeps) {
  return {
    snapshot(grant: LeaseGrant, snapshotId: string): AsyncGenerator<BundleEntry> {
      if (grant.snapshotId !== snapshotId) throw notYours(grant, `Snapshot ${snapshotId}`);
      if (!hasSnapshot({ dataDir: deps.dataDir, snapshotId }))
        throw notFound(`No snapshot ${snapshotId} on the dashboard.`);
      return snapshotBundle({ dataDir: deps.dataDir, snapshotId });
    },

    async testFile(grant: LeaseGrant, options: { studyId: string; sha256: string }): Promise<Buffer> {
      if (grant.studyId !== options.studyId || !grant.testFiles.has(options.sha256))
        throw notYours(grant, `Test file ${options.sha256} of study ${options.studyId}`);
      const file = path.join(dataDirPaths(deps.dataDir).testFiles(options.studyId), options.sha256);
      const data = await fsp.readFile(file).catch(() => null);
      if (!data) throw notFound(`Study ${options.studyId} captured no file with sha256 ${options.sha256}.`);
      return data;
    },

    /** `docker save` of the environment image the leased job runs on (never any other image of the engine). */
    async image(grant: LeaseGrant, imageId: string): Promise<NodeJS.ReadableStream> {
      await leasedImage(deps, grant, imageId);
      return deps.runtime.saveImage(imageId);
    },

    /** That image through the registry, when one is set: pushed once, then `ready` with the digest to pull. */
    async imageInRegistry(grant: LeaseGrant, imageId: string): Promise<RegistryPush> {
      await leasedImage(deps, grant, imageId);
      return deps.registry?.status(imageId) ?? { state: "none" };
    },

    /** The installed dependencies the leased job's environment image names (its labels here), as one archive. */
    dependencies: (grant: LeaseGrant, dirId: string) => dependencyMeta(deps, grant, dirId),

    /** That archive's bytes from `start` (a worker resuming a cut-off fetch). */
    async dependencyArchive(grant: LeaseGrant, options: { dirId: string; start: number }) {
      await dependencyMeta(deps, grant, options.dirId); // the same check, and the archive exists after it
      return dependencyArchiveStream({ dataDir: deps.dataDir, ...options });
    },

    /** The committed trial image the leased image.send job is for ("continue a result"), loaded by id into this engine. */
    async receiveImage(options: {
      grant: LeaseGrant;
      imageId: string;
      source: Readable;
      worker: string;
    }): Promise<{ imageId: string }> {
      return awaitedImages(deps, options.grant, options.imageId).receive({ ...options, jobId: options.grant.jobId });
    },

    /** The same image pushed to the registry instead: the dashboard pulls it by the digest the worker names. */
    receivePushedImage(options: { grant: LeaseGrant; imageId: string; reference: string; worker: string }) {
      const images = awaitedImages(deps, options.grant, options.imageId);
      return images.receivePushed({ ...options, jobId: options.grant.jobId });
    },

    async receiveResults(options: {
      grant: LeaseGrant;
      trialId: string;
      attempt: number;
      workspaceId: string | null;
      source: AsyncIterable<Buffer | Uint8Array>;
    }): Promise<{ files: number }> {
      const { grant, trialId, attempt, workspaceId } = options;
      if (grant.trial?.trialId !== trialId || grant.trial.attempt !== attempt)
        throw notYours(grant, `The results of trial ${trialId} (attempt ${attempt})`);
      const trial = await deps.queries.trial(trialId);
      if (!trial) throw notFound(`No trial ${trialId}: it may have been deleted.`);
      if (trial.attempt !== attempt || isFinishedTrial(trial.state))
        throw new AppError({
          code: "FORBIDDEN",
          message: `Trial ${trialId} is ${isFinishedTrial(trial.state) ? `finished (${trial.state})` : `on attempt ${trial.attempt}`}: results of attempt ${attempt} are no longer taken.`,
        });
      if (!trial.study.snapshotId) throw notFound(`The study of trial ${trialId} has no snapshot any more.`);
      // a workspace id the dashboard already holds for anything else (another trial, a session) is not this trial's
      if (workspaceId && trial.workspaceId !== workspaceId) {
        const existing = await readWorkspace({ dataDir: deps.dataDir, workspaceId }).catch(() => null);
        if (existing) throw notYours(grant, `Workspace ${workspaceId}`);
      }
      return receiveTrialResults({
        dataDir: deps.dataDir,
        trialId,
        attempt,
        workspaceId,
        source: options.source,
        snapshotId: trial.study.snapshotId,
      });
    },
  };
}

export type WorkerApi = ReturnType<typeof createWorkerApi>;
