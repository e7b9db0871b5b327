import type http from "node:http";

/** HTTP plumbing every API the mock model speaks shares: bodies in, streamed chunks out, think time. */

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The request body; null when it is larger than the mock accepts. */
export async function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export type JsonBody = { ok: true; json: unknown } | { ok: false; status: number; message: string };

/** The request body parsed as JSON, or why it could not be. */
export async function readJsonBody(req: http.IncomingMessage): Promise<JsonBody> {
  const raw = await readBody(req);
  if (raw === null) return { ok: false, status: 413, message: "Request body too large." };
  try {
    return { ok: true, json: JSON.parse(raw.toString("utf8")) };
  } catch {
    return { ok: false, status: 400, message: "The request body is not JSON." };
  }
}

/** Writes a chunk; resolves once the socket has room again (or the client went away). */
export async function writeChunk(res: http.ServerResponse, text: string): Promise<void> {
  if (res.write(text)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** A real model takes time to answer; a client that goes away ends the wait. */
export function think(options: { res: http.ServerResponse; ms: number }): Promise<void> {
  if (options.ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, options.ms);
    options.res.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Sends one JSON body with its length. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Starts an event stream (identity encoding whatever the client accepts: the mock never compresses). */
export function startEventStream(res: http.ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
}

/** Ends a stream early: `close` ends it cleanly, `reset` drops the connection once the partial stream is out. */
export async function cutStream(res: http.ServerResponse, mode: "reset" | "close"): Promise<void> {
  if (mode === "close") {
    res.end();
    return;
  }
  await new Promise<void>((resolve) => res.write("", () => resolve()));
  res.destroy();
}

/** A rough token count (4 characters a token), enough for a client that sizes its context. */
export function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4));
}
