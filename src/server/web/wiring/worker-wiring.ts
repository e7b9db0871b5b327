import type { Db } from "../../core/db/client";
import type { ModelGatewayOptions } from "../../core/gateway/model-gateway";
import type { ResultImageFetcher } from "../../core/artifacts/result-image-fetch";
import { createRegistryPublisher } from "../../core/artifacts/registry-publisher";
import type { ImageRegistry } from "../../core/runtime/registry-transfer";
import { createJobLocks } from "../../core/jobs/job-locks";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { createJobLeases, type JobLeases } from "../workers/job-leases";
import { createRemoteModelRelay, type RemoteModelRelay } from "../workers/remote-model-relay";
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from "../workers/upload-limits";
import { createWorkerApi, type WorkerApi } from "../workers/worker-api";
import { createWorkerApiQueries } from "../workers/worker-api.queries";
import { createWorkerTokenService, type WorkerTokenService } from "../workers/worker-token-service";
import { createWorkerTokenQueries } from "../workers/worker-tokens.queries";

export interface WorkerServices {
  /** Worker tokens: created and revoked on the System page; they open the worker API only. */
  tokens: WorkerTokenService;
  /** Which jobs each worker token holds: every worker API call is checked against its lease. */
  leases: JobLeases;
  /** What workers on other hosts fetch and deliver over HTTP. */
  api: WorkerApi;
  /** The model gateway of remote trials (the credential stays here; their workers relay to it). */
  models: RemoteModelRelay;
  /** How large an upload a worker may send. */
  limits: UploadLimits;
  close(): Promise<void>;
}

/** The worker tokens, leases and worker API, with the web process's model access for remote trials. */
export function wireWorkers(options: {
  db: Db;
  dataDir: string;
  redisUrl: string;
  runtime: ContainerRuntime;
  gateway?: Omit<ModelGatewayOptions, "tcp"> | undefined;
  images?: Pick<ResultImageFetcher, "receive" | "receivePushed">;
  /** How large an upload a worker may send (default DEFAULT_UPLOAD_LIMITS; INVARIANT_WORKER_MAX_*_MIB). */
  workerUploadLimits?: Partial<UploadLimits> | undefined;
  /** The OCI registry environment images are pushed to for workers on other hosts (absent: docker save only). */
  registry?: ImageRegistry | undefined;
  log?: (message: string) => void;
}): WorkerServices {
  const queries = createWorkerApiQueries(options.db);
  const locks = createJobLocks({ redisUrl: options.redisUrl });
  const models = createRemoteModelRelay({
    dataDir: options.dataDir,
    gateway: options.gateway,
    log: options.log ?? (() => undefined),
  });
  return {
    tokens: createWorkerTokenService({ tokens: createWorkerTokenQueries(options.db) }),
    // a job that ended takes its model run with it
    leases: createJobLeases({ locks, queries, onEnded: (jobId) => void models.end(jobId) }),
    api: createWorkerApi({
      dataDir: options.dataDir,
      runtime: options.runtime,
      queries,
      ...(options.images ? { images: options.images } : {}),
      registry: createRegistryPublisher({
        runtime: options.runtime,
        registry: options.registry ?? null,
        log: options.log ?? (() => undefined),
      }),
    }),
    models,
    limits: { ...DEFAULT_UPLOAD_LIMITS, ...options.workerUploadLimits },
    async close() {
      await models.close();
      await locks.close();
    },
  };
}
