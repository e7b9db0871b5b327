import type http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { writeBundle } from "../../lib/files/file-bundle";
import type { AppServices } from "../app-services";
import { isAppError } from "../errors/app-error";
import { credentialsFromHeaders } from "../access/request-guard";

/**
 * The worker API (/api/worker/…), for workers on other hosts: thin transport over
 * services.workers (src/server/workers/worker-api.ts). Only a worker token opens it (the admin token and
 * viewer links do not), and a worker token opens nothing else; a revoked one is refused at once (401).
 */
const STATUS: Record<string, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
};

const id = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "An id is letters, digits, - and _.");
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, "A sha256 is 64 lowercase hex digits.");
const routes = {
  snapshot: { pattern: /^\/api\/worker\/snapshots\/([^/]+)$/, params: z.tuple([sha256]) },
  testFile: { pattern: /^\/api\/worker\/studies\/([^/]+)\/test-files\/([^/]+)$/, params: z.tuple([id, sha256]) },
  image: {
    pattern: /^\/api\/worker\/images\/([^/]+)$/,
    params: z.tuple([z.string().regex(/^sha256:[0-9a-f]{64}$/, "An image is named by its id, sha256:<64 hex>.")]),
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
const credentialSchema = z.union([
  z.object({
    kind: z.literal("chatgpt"),
    accessToken: z.string().min(1),
    accountId: z.string().nullable(),
    source: z.literal("auth.json"),
  }),
  z.object({
    kind: z.literal("api-key").optional(),
    apiKey: z.string().min(1),
    source: z.enum(["OPENAI_API_KEY", "stored key", "auth.json"]),
  }),
]);

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-store");
  res.end(JSON.stringify(body));
}

function refuse(res: http.ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { status, message } });
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of req) {
    text += (chunk as Buffer).toString();
    if (text.length > 1024 * 1024) throw new Error("request body too large");
  }
  return JSON.parse(text || "{}");
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

async function route(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  services: AppServices;
  token: { name: string };
}): Promise<void> {
  const { req, res, url, services } = options;
  const api = services.workers.api;
  const get = req.method === "GET";
  const post = req.method === "POST";
  let params;
  if (get && url.pathname === "/api/worker/hello")
    return sendJson(res, 200, { worker: options.token.name, version: services.version });
  if (get && (params = match(routes.snapshot, url.pathname))) return stream(res, writeBundle(api.snapshot(params[0])));
  if (get && (params = match(routes.testFile, url.pathname)))
    return stream(res, Readable.from([await api.testFile({ studyId: params[0], sha256: params[1] })]));
  if (get && (params = match(routes.image, url.pathname))) return stream(res, await api.image(params[0]));
  // a committed trial image a session asked this worker for: streamed into `docker load`, never buffered
  if (post && (params = match(routes.image, url.pathname)))
    return sendJson(res, 200, await api.receiveImage({ imageId: params[0], source: req, worker: options.token.name }));
  if (post && (params = match(routes.results, url.pathname))) {
    const workspaceId = workspaceIdSchema.parse(url.searchParams.get("workspaceId"));
    const received = await api.receiveResults({ trialId: params[0], attempt: params[1], workspaceId, source: req });
    return sendJson(res, 200, received);
  }
  if (get && url.pathname === "/api/worker/credential") return sendJson(res, 200, await api.credential());
  if (post && url.pathname === "/api/worker/credential/refresh") {
    const used = z.object({ used: credentialSchema }).parse(await readJson(req)).used;
    return sendJson(res, 200, { credential: await api.refreshCredential(used) });
  }
  refuse(
    res,
    404,
    `The worker API has no ${req.method ?? "?"} ${url.pathname}. Is this worker newer than the dashboard?`,
  );
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
      ? (STATUS[error.code] ?? 500)
      : error instanceof z.ZodError
        ? 400
        : ((error as { status?: number }).status ?? 500);
    const message =
      error instanceof z.ZodError
        ? error.issues.map((issue) => issue.message).join("; ")
        : error instanceof Error
          ? error.message
          : String(error);
    if (status === 500) options.log(`worker api ${url.pathname} (${check.token.name}): ${message}`);
    if (!res.headersSent) refuse(res, status, status === 500 ? `The dashboard could not answer: ${message}` : message);
    else res.destroy();
  }
  return true;
}
