import fsp from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error";
import type { BundleEntry } from "../../lib/files/file-bundle";
import { hasSnapshot, snapshotBundle } from "../artifacts/snapshot-transfer";
import { receiveTrialResults } from "../artifacts/trial-results";
import type { Readable } from "node:stream";
import type { ResultImageFetcher } from "../artifacts/result-image-fetch";
import type { GatewayCredential } from "../gateway/gateway-credentials";
import type { ContainerRuntime } from "../runtime/docker-runtime";
import { LABEL } from "../runtime/container-spec";
import { dataDirPaths } from "../storage/data-dir";
import type { WorkerApiQueries } from "./worker-api.queries";

export interface WorkerApiDeps {
  dataDir: string;
  runtime: Pick<ContainerRuntime, "inspectImage" | "saveImage">;
  queries: WorkerApiQueries;
  /** Where a committed trial image a session asked a worker for arrives (absent: nothing is waited for). */
  images?: Pick<ResultImageFetcher, "receive">;
  /** The model credential the web process holds (its gateway's sources); absent: none configured. */
  credential?: {
    current: () => GatewayCredential | Promise<GatewayCredential>;
    afterUnauthorized?: (used: GatewayCredential) => Promise<GatewayCredential | null>;
  };
}

const notFound = (message: string) => new AppError({ code: "NOT_FOUND", message });

/**
 * What a worker on another host may ask of the web process (transport: src/server/http/worker-endpoint.ts):
 * the artefacts its jobs name, by content id, and a place to deliver results. Nothing here reads or
 * changes anything else; the worker token opens this and only this.
 */
export function createWorkerApi(deps: WorkerApiDeps) {
  return {
    snapshot(snapshotId: string): AsyncGenerator<BundleEntry> {
      if (!hasSnapshot({ dataDir: deps.dataDir, snapshotId }))
        throw notFound(`No snapshot ${snapshotId} on the dashboard.`);
      return snapshotBundle({ dataDir: deps.dataDir, snapshotId });
    },

    async testFile(options: { studyId: string; sha256: string }): Promise<Buffer> {
      const file = path.join(dataDirPaths(deps.dataDir).testFiles(options.studyId), options.sha256);
      const data = await fsp.readFile(file).catch(() => null);
      if (!data) throw notFound(`Study ${options.studyId} captured no file with sha256 ${options.sha256}.`);
      return data;
    },

    /** `docker save` of an environment or trial image the product made (never any other image of the engine). */
    async image(imageId: string): Promise<NodeJS.ReadableStream> {
      const info = await deps.runtime.inspectImage(imageId);
      if (!info || info.id !== imageId)
        throw notFound(`No image ${imageId} on the dashboard host's Docker engine (referenced by id).`);
      if (!info.labels[LABEL.environment] && !info.labels[LABEL.run])
        throw new AppError({ code: "FORBIDDEN", message: `Image ${imageId} is not one invariant-web made.` });
      return deps.runtime.saveImage(imageId);
    },

    /** A committed trial image the web process asked this worker for ("continue a result"), loaded into its engine. */
    async receiveImage(options: { imageId: string; source: Readable; worker: string }): Promise<{ imageId: string }> {
      if (!deps.images)
        throw new AppError({ code: "CONFLICT", message: "This dashboard is not waiting for any image." });
      return deps.images.receive(options);
    },

    async receiveResults(options: {
      trialId: string;
      attempt: number;
      workspaceId: string | null;
      source: AsyncIterable<Buffer | Uint8Array>;
    }): Promise<{ files: number }> {
      const target = await deps.queries.resultTarget(options.trialId);
      if (!target) throw notFound(`No trial ${options.trialId}: it may have been deleted.`);
      if (target.attempt !== options.attempt)
        throw new AppError({
          code: "CONFLICT",
          message: `Trial ${options.trialId} is on attempt ${target.attempt}; results of attempt ${options.attempt} are no longer wanted.`,
        });
      if (!target.snapshotId) throw notFound(`The study of trial ${options.trialId} has no snapshot any more.`);
      return receiveTrialResults({ dataDir: deps.dataDir, ...options, snapshotId: target.snapshotId });
    },

    async credential(): Promise<GatewayCredential> {
      if (!deps.credential)
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: "This dashboard was started without model access.",
        });
      return deps.credential.current();
    },

    async refreshCredential(used: GatewayCredential): Promise<GatewayCredential | null> {
      return (await deps.credential?.afterUnauthorized?.(used)) ?? null;
    },
  };
}

export type WorkerApi = ReturnType<typeof createWorkerApi>;
