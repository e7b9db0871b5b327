import type http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { writeBundle } from "../../../lib/files/file-bundle";
import type { AppServices } from "../wiring/app-services";
import { messageOf } from "../../../shared/error-message";
import { HTTP_STATUS, isAppError } from "../../core/errors/app-error";
import { credentialsFromHeaders } from "../access/request-guard";
import type { JobLease, LeaseGrant } from "../workers/job-leases";
import { drainRefused, limitedBody, UploadTooLargeError } from "../workers/upload-limits";
import type { WorkerTokenView } from "../workers/worker-tokens.queries";
import { forwardedSearch } from "../../core/gateway/apis/provider-auth";

/**
 * The worker API (/api/worker/…), for workers on other hosts: thin transport over
 * services.workers (src/server/web/workers/worker-api.ts). Only a worker token opens it (the admin token and
 * viewer links do not), and a worker token opens nothing else; a revoked one is refused at once (401).
 */
const id = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "An id is letters, digits, - and _.");
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, "A sha256 is 64 lowercase hex digits.");
const routes = {
  snapshot: { pattern: /^\/api\/worker\/snapshots\/([^/]+)$/, params: z.tuple([sha256]) },
  testFile: { pattern: /^\/api\/worker\/studies\/([^/]+)\/test-files\/([^/]+)$/, params: z.tuple([id, sha256]) },
  image: {
    pattern: /^\/api\/worker\/images\/([^/]+)$/,
    params: z.tuple([z.string().regex(/^sha256:[0-9a-f]{64}$/, "An image is named by its id, sha256:<64 hex>.")]),
  },
  imagePushed: {
    pattern: /^\/api\/worker\/images\/([^/]+)\/pushed$/,
    params: z.tuple([z.string().regex(/^sha256:[0-9a-f]{64}$/, "An image is named by its id, sha256:<64 hex>.")]),
  },
  imageInRegistry: {
    pattern: /^\/api\/worker\/images\/([^/]+)\/registry$/,
    params: z.tuple([z.string().regex(/^sha256:[0-9a-f]{64}$/, "An image is named by its id, sha256:<64 hex>.")]),
  },
  dependencies: {
    pattern: /^\/api\/worker\/dependencies\/([^/]+)$/,
    params: z.tuple([z.string().regex(/^deps-[0-9a-f]{24}$/, "A dependency folder is deps- and 24 hex digits.")]),
  },
  dependencyArchive: {
    pattern: /^\/api\/worker\/dependencies\/([^/]+)\/archive$/,
    params: z.tuple([z.string().regex(/^deps-[0-9a-f]{24}$/, "A dependency folder is deps- and 24 hex digits.")]),
  },
  results: {
    pattern: /^\/api\/worker\/trials\/([^/]+)\/attempts\/([^/]+)\/results$/,
    params: z.tuple([id, z.coerce.number().int().positive()]),
  },
};
const workspaceIdSchema = z
  .string()
  .regex(/^ws-[0-9a-f]{24}$/, "A workspace id is ws- and 24 hex digits.")
  .nullable();
const leaseSchema = z.object({
  jobId: z.string().regex(/^[A-Za-z0-9_:-]{1,200}$/, "A job id is letters, digits, -, _ and :."),
  lock: z.string().min(1).max(200),
});
/** Model API requests of a remote trial's agent: `/api/worker/model` + the API's own path (Responses and Anthropic /v1/…, Gemini /v1beta/…). */
const MODEL_ROOT = "/api/worker/model";
const MODEL_PREFIXES = [`${MODEL_ROOT}/v1/`, `${MODEL_ROOT}/v1beta/`];

const pushedSchema = z.object({
  reference: z
    .string()
    .max(600)
    .regex(/^[^\s@]+@sha256:[0-9a-f]{64}$/, "A pushed image is named repository@sha256:<64 hex>."),
});

async function readAll(body: AsyncIterable<Buffer | string>): Promise<string> {
  let text = "";
  for await (const chunk of body) text += chunk.toString();
  return text;
}

/** The job lease a call names (x-invariant-job, x-invariant-job-lock), or null when it names none. */
function leaseOf(req: http.IncomingMessage): JobLease | null {
  const jobId = req.headers["x-invariant-job"];
  const lock = req.headers["x-invariant-job-lock"];
  if (jobId === undefined && lock === undefined) return null;
  return leaseSchema.parse({ jobId, lock });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-store");
  res.end(JSON.stringify(body));
}

function refuse(res: http.ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { status, message } });
}

function match<T extends z.ZodType>(route: { pattern: RegExp; params: T }, pathname: string): z.infer<T> | null {
  const found = route.pattern.exec(pathname);
  if (!found) return null;
  const parsed = route.params.safeParse(found.slice(1).map((part) => decodeURIComponent(part)));
  if (!parsed.success)
    throw Object.assign(new Error(parsed.error.issues.map((i) => i.message).join("; ")), { status: 400 });
  return parsed.data;
}

async function stream(res: http.ServerResponse, body: NodeJS.ReadableStream | AsyncIterable<Buffer>): Promise<void> {
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/octet-stream");
  res.setHeader("Cache-Control", "no-store");
  await pipeline(body instanceof Readable ? body : Readable.from(body as AsyncIterable<Buffer>), res);
}

/** `Range: bytes=N-` (the only form a worker sends): where a resumed fetch starts; 0 without one. */
function rangeStart(req: http.IncomingMessage): number {
  const range = req.headers.range;
  if (range === undefined) return 0;
  const found = /^bytes=(\d{1,15})-$/.exec(range);
  if (!found)
    throw Object.assign(new Error(`Unsupported Range "${range.slice(0, 80)}": send bytes=<start>-.`), { status: 416 });
  return Number(found[1]);
}

async function streamFrom(
  res: http.ServerResponse,
  part: { stream: NodeJS.ReadableStream; start: number; total: number },
): Promise<void> {
  res.statusCode = part.start > 0 ? 206 : 200;
  res.setHeader("Content-Type", "application/octet-stream");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Accept-Ranges", "bytes");
  res.setHeader("Content-Length", String(part.total - part.start));
  if (part.start > 0) res.setHeader("Content-Range", `bytes ${part.start}-${part.total - 1}/${part.total}`);
  await pipeline(part.stream as Readable, res);
}

type RouteOptions = {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  services: AppServices;
  token: WorkerTokenView;
};

/** What a call does once its lease is checked: found (and its inputs parsed) before the lease is looked at. */
type Action = (grant: LeaseGrant) => Promise<void>;

/** Uploads: bounded (413 past the limit, nothing kept), each under the lease of the job it belongs to. */
function uploadAction(options: RouteOptions): Action | null {
  const { req, res, url, services } = options;
  const { api, limits, models } = services.workers;
  let params;
  if ((params = match(routes.image, url.pathname))) {
    const imageId = params[0];
    return async (grant) => {
      const body = limitedBody({ req, limit: limits.imageBytes, what: "image upload" });
      const received = await api
        .receiveImage({ grant, imageId, source: body, worker: options.token.name })
        .catch((error: unknown) => {
          throw body.exceeded() ? new UploadTooLargeError("image upload", limits.imageBytes) : error;
        });
      sendJson(res, 200, received);
    };
  }
  if ((params = match(routes.imagePushed, url.pathname))) {
    const imageId = params[0];
    return async (grant) => {
      const text = await readAll(limitedBody({ req, limit: 4096, what: "push notice" }));
      const { reference } = pushedSchema.parse(JSON.parse(text || "{}"));
      sendJson(res, 202, api.receivePushedImage({ grant, imageId, reference, worker: options.token.name }));
    };
  }
  if ((params = match(routes.results, url.pathname))) {
    const [trialId, attempt] = params;
    const workspaceId = workspaceIdSchema.parse(url.searchParams.get("workspaceId"));
    return async (grant) => {
      const source = limitedBody({ req, limit: limits.resultBytes, what: "trial result bundle" });
      const received = await api.receiveResults({ grant, trialId, attempt, workspaceId, source });
      await models.end(grant.jobId); // the attempt is over: its model run too
      sendJson(res, 200, received);
    };
  }
  return null;
}

/** Everything but hello names a job leased to the calling worker; the lease decides what it may read or send. */
function leasedAction(options: RouteOptions): Action | null {
  const { req, res, url, services } = options;
  const { api, models } = services.workers;
  const get = req.method === "GET";
  const post = req.method === "POST";
  let params;
  if (post && url.pathname === "/api/worker/lease")
    return (grant) => Promise.resolve(sendJson(res, 200, { jobId: grant.jobId }));
  if (get && (params = match(routes.snapshot, url.pathname))) {
    const [snapshotId] = params;
    return (grant) => stream(res, writeBundle(api.snapshot(grant, snapshotId)));
  }
  if (get && (params = match(routes.testFile, url.pathname))) {
    const [studyId, sha] = params;
    return async (grant) => stream(res, Readable.from([await api.testFile(grant, { studyId, sha256: sha })]));
  }
  if (get && (params = match(routes.dependencies, url.pathname))) {
    const [dirId] = params;
    return async (grant) => sendJson(res, 200, await api.dependencies(grant, dirId));
  }
  if (get && (params = match(routes.dependencyArchive, url.pathname))) {
    const [dirId] = params;
    const start = rangeStart(req);
    return async (grant) => streamFrom(res, await api.dependencyArchive(grant, { dirId, start }));
  }
  if (get && (params = match(routes.imageInRegistry, url.pathname))) {
    const [imageId] = params;
    return async (grant) => sendJson(res, 200, await api.imageInRegistry(grant, imageId));
  }
  if (get && (params = match(routes.image, url.pathname))) {
    const [imageId] = params;
    return async (grant) => stream(res, await api.image(grant, imageId));
  }
  if (post) {
    const upload = uploadAction(options);
    if (upload) return upload;
  }
  if (url.pathname === "/api/worker/model/run")
    return async (grant) => sendJson(res, 200, post ? await models.open(grant) : await models.status(grant));
  if (MODEL_PREFIXES.some((prefix) => url.pathname.startsWith(prefix))) {
    const runToken = req.headers["x-invariant-run-token"];
    // the run token rides in x-invariant-run-token only: a `key=` in the query is never relayed
    const path = url.pathname.slice(MODEL_ROOT.length) + forwardedSearch(url);
    return (grant) =>
      models.forward({ grant, runToken: typeof runToken === "string" ? runToken : undefined, path, req, res });
  }
  return null;
}

async function route(options: RouteOptions): Promise<void> {
  const { req, res, url, services } = options;
  if (req.method === "GET" && url.pathname === "/api/worker/hello")
    return sendJson(res, 200, { worker: options.token.name, version: services.version });
  if (url.pathname.startsWith("/api/worker/credential"))
    return refuse(
      res,
      403,
      "The dashboard does not hand its model credential to workers: a remote trial's model requests go through the dashboard's gateway. Upgrade this worker to the dashboard's version.",
    );
  const action = leasedAction(options);
  if (!action)
    return refuse(
      res,
      404,
      `The worker API has no ${req.method ?? "?"} ${url.pathname}. Is this worker newer than the dashboard?`,
    );
  await action(await services.workers.leases.check({ token: options.token, lease: leaseOf(req) }));
}

/** Answers a /api/worker/ request (returns false for any other path). */
export async function handleWorkerApi(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  services: AppServices;
  log: (message: string) => void;
}): Promise<boolean> {
  const { req, res, url, services } = options;
  if (!url.pathname.startsWith("/api/worker/")) return false;
  const check = await services.workers.tokens.identify(
    credentialsFromHeaders({ authorization: req.headers.authorization }).bearer,
  );
  if (!check.ok) {
    refuse(res, 401, check.message);
    return true;
  }
  try {
    await route({ ...options, token: check.token });
  } catch (error) {
    const status = isAppError(error)
      ? HTTP_STATUS[error.code]
      : error instanceof z.ZodError
        ? 400
        : ((error as { status?: number }).status ?? 500);
    const message =
      error instanceof z.ZodError ? error.issues.map((issue) => issue.message).join("; ") : messageOf(error);
    if (status === 500) options.log(`worker api ${url.pathname} (${check.token.name}): ${message}`);
    if (status === 413) drainRefused(req); // so a sender still sending reads the answer
    if (!res.headersSent) refuse(res, status, status === 500 ? `The dashboard could not answer: ${message}` : message);
    else res.destroy();
  }
  return true;
}
