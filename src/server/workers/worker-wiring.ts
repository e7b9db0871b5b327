import type { Db } from "../db/client";
import type { ModelGatewayOptions } from "../gateway/model-gateway";
import type { ResultImageFetcher } from "../artifacts/result-image-fetch";
import type { ContainerRuntime } from "../runtime/docker-runtime";
import { createWorkerApi, type WorkerApi } from "./worker-api";
import { createWorkerApiQueries } from "./worker-api.queries";
import { createWorkerTokenService, type WorkerTokenService } from "./worker-token-service";
import { createWorkerTokenQueries } from "./worker-tokens.queries";

export interface WorkerServices {
  /** Worker tokens: created and revoked on the System page; they open the worker API only. */
  tokens: WorkerTokenService;
  /** What workers on other hosts fetch and deliver over HTTP. */
  api: WorkerApi;
}

/** The worker tokens and the worker API, with the web process's model credential (its sessions' gateway sources). */
export function wireWorkers(options: {
  db: Db;
  dataDir: string;
  runtime: ContainerRuntime;
  gateway?: Pick<ModelGatewayOptions, "credential" | "afterUnauthorized"> | undefined;
  images?: Pick<ResultImageFetcher, "receive">;
}): WorkerServices {
  const gateway = options.gateway;
  return {
    tokens: createWorkerTokenService({ tokens: createWorkerTokenQueries(options.db) }),
    api: createWorkerApi({
      dataDir: options.dataDir,
      runtime: options.runtime,
      queries: createWorkerApiQueries(options.db),
      ...(options.images ? { images: options.images } : {}),
      ...(gateway
        ? {
            credential: {
              current: gateway.credential,
              ...(gateway.afterUnauthorized ? { afterUnauthorized: gateway.afterUnauthorized } : {}),
            },
          }
        : {}),
    }),
  };
}
