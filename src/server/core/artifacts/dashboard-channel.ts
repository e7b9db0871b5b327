import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { TokenUsage } from "../../../shared/token-usage";

/**
 * A worker's authenticated HTTP channel to the web process (the worker API, /api/worker/…): every call
 * carries the worker token. A 401 means the token was revoked (or is not one of this dashboard's):
 * `onRefused` is told once with the dashboard's sentence, and the call fails with it.
 */
export class WorkerRefusedError extends Error {}

/** The job a call is for: its BullMQ id and the lock this worker holds on it (see src/server/web/workers/job-leases.ts). */
export interface JobLease {
  jobId: string;
  lock: string;
}

/** What a worker on another host reads of a trial's model run: the dashboard's metering (it meters nothing itself). */
export interface RemoteRunStatus {
  usage: TokenUsage | null;
  budgetReached: boolean;
  budgetTokens: number | null;
  reportedModel: string | null;
  lastUpstreamError: string | null;
}

export interface DashboardChannel {
  /** GET a path; the response body as a stream (404 and other errors are thrown with the dashboard's message). */
  fetch(pathname: string, lease?: JobLease): Promise<Readable>;
  /** GET a path from byte `start` on (a resumed download): where the answer starts (0 when the dashboard sent all of it). */
  fetchFrom(pathname: string, lease: JobLease, start: number): Promise<{ start: number; body: Readable }>;
  /** GET a path whose answer is JSON. */
  json<T>(pathname: string, init?: { method?: "GET" | "POST"; body?: unknown; lease?: JobLease }): Promise<T>;
  /** POST a stream. */
  upload(pathname: string, body: AsyncIterable<Buffer>, lease?: JobLease): Promise<unknown>;
  /** Any request, answered as it comes (only a refused token throws): the model relay's hop. */
  request(pathname: string, init: RequestInit & { lease: JobLease }): Promise<Response>;
}

const leaseHeaders = (lease: JobLease | undefined): Record<string, string> =>
  lease ? { "x-invariant-job": lease.jobId, "x-invariant-job-lock": lease.lock } : {};

async function errorOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } };
    if (parsed.error?.message) return parsed.error.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 500) || response.statusText;
}

export function createDashboardChannel(options: {
  dashboardUrl: string;
  token: string;
  onRefused: (message: string) => void;
}): DashboardChannel {
  const base = options.dashboardUrl.replace(/\/+$/, "");
  let refused = false;

  async function send(pathname: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${base}${pathname}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${options.token}` },
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(
        `The dashboard at ${base} did not answer (${cause?.code ?? cause?.message ?? String(error)}). Check --dashboard-url and that this host can reach it.`,
        { cause: error },
      );
    }
    if (response.status === 401) {
      const message = await errorOf(response);
      if (!refused) {
        refused = true;
        options.onRefused(message);
      }
      throw new WorkerRefusedError(`The dashboard refused this worker's token: ${message}`);
    }
    return response;
  }

  async function call(pathname: string, init: RequestInit): Promise<Response> {
    const response = await send(pathname, init);
    if (!response.ok)
      throw new Error(`${pathname}: the dashboard answered ${response.status}: ${await errorOf(response)}`);
    return response;
  }

  return {
    async fetch(pathname, lease) {
      const response = await call(pathname, { method: "GET", headers: leaseHeaders(lease) });
      if (!response.body) return Readable.from([]);
      return Readable.fromWeb(response.body as WebReadableStream);
    },
    async fetchFrom(pathname, lease, start) {
      const range: Record<string, string> = start > 0 ? { range: `bytes=${start}-` } : {};
      const response = await call(pathname, { method: "GET", headers: { ...leaseHeaders(lease), ...range } });
      const body = response.body ? Readable.fromWeb(response.body as WebReadableStream) : Readable.from([]);
      return { start: response.status === 206 ? start : 0, body };
    },
    async json<T>(pathname: string, init: { method?: "GET" | "POST"; body?: unknown; lease?: JobLease } = {}) {
      const response = await call(pathname, {
        method: init.method ?? "GET",
        headers: {
          ...leaseHeaders(init.lease),
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      return (await response.json()) as T;
    },
    async upload(pathname, body, lease) {
      const response = await call(pathname, {
        method: "POST",
        body: Readable.toWeb(Readable.from(body)) as unknown as BodyInit,
        headers: { "content-type": "application/octet-stream", ...leaseHeaders(lease) },
        duplex: "half",
      } as RequestInit);
      return (await response.json()) as unknown;
    },
    request(pathname, init) {
      const { lease, ...rest } = init;
      return send(pathname, {
        ...rest,
        headers: { ...(rest.headers as Record<string, string>), ...leaseHeaders(lease) },
      });
    },
  };
}
