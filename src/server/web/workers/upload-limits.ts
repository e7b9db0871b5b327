import { Transform, type Readable } from "node:stream";

/** How large an upload a worker on another host may send (bytes). */
export interface UploadLimits {
  /** A trial attempt's result bundle: changed files, log, evaluation, Codex home. */
  resultBytes: number;
  /** A committed trial image (`docker save`) for "continue a result". */
  imageBytes: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  resultBytes: 2 * 1024 ** 3,
  imageBytes: 32 * 1024 ** 3,
};

const figure = (bytes: number) =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(1)} GiB`
    : bytes >= 1024 ** 2
      ? `${(bytes / 1024 ** 2).toFixed(1)} MiB`
      : `${bytes} bytes`;

/** After a 413 the rest of the body is read and dropped (so the sender sees the answer) up to this much, then cut. */
export const DRAIN_AFTER_REFUSAL_BYTES = 64 * 1024 ** 2;

/** An upload past its limit: answered 413, and nothing of it is kept. */
export class UploadTooLargeError extends Error {
  readonly status = 413;
  constructor(what: string, limit: number) {
    super(
      `The ${what} is larger than this dashboard accepts (${figure(limit)}); nothing of it was kept. Raise the limit on the dashboard or send less.`,
    );
  }
}

/**
 * The request body, counted: refused before a byte is read when its Content-Length is over `limit`, cut off
 * with an UploadTooLargeError as soon as more than `limit` bytes arrived. `exceeded` says whether it was.
 */
export function limitedBody(options: {
  req: Readable & { headers: Record<string, string | string[] | undefined> };
  limit: number;
  what: string;
}): Transform & { exceeded: () => boolean } {
  const { req, limit, what } = options;
  let bytes = 0;
  let over = false;
  const declared = Number(req.headers["content-length"] ?? NaN);
  if (declared > limit) {
    over = true;
    throw new UploadTooLargeError(what, limit);
  }
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > limit) {
        over = true;
        req.unpipe(counter);
        done(new UploadTooLargeError(what, limit));
      } else done(null, chunk);
    },
  });
  counter.on("error", () => undefined); // its reader gets the error; nothing else listens
  req.on("error", (error) => counter.destroy(error));
  req.on("aborted", () => counter.destroy(new Error(`the ${what} was cut off before its end`)));
  req.pipe(counter);
  return Object.assign(counter, { exceeded: () => over });
}

/** Reads and drops what is left of a refused upload (the answer reaches a sender still sending), up to a bound. */
export function drainRefused(req: Readable): void {
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_AFTER_REFUSAL_BYTES) req.destroy();
  });
  req.resume();
}
