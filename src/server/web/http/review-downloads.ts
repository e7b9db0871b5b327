import type http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { AppServices } from "../wiring/app-services";
import { AppError } from "../../core/errors/app-error";
import type { ReviewDownload } from "../review/trial-downloads";
import { pathKeySchema, reviewFileSideSchema, type ReviewSubject } from "../../../shared/review-schemas";

const PATCH_PATH = /^\/api\/(trials|sessions)\/([\w-]+)\/patch$/;
const FILE_PATH = /^\/api\/(trials|sessions)\/([\w-]+)\/file$/;

/** A trial's or a session's review, by the path's first part. */
function subjectOf(match: RegExpExecArray): ReviewSubject {
  const id = match[2] ?? "";
  return match[1] === "sessions" ? { sessionId: id } : { trialId: id };
}

/**
 * The review's downloads, or null when the path is not one: a trial's (or a private-copy session's) patch,
 * and either side of one of its files.
 */
export function reviewDownload(options: {
  pathname: string;
  searchParams: URLSearchParams;
  services: AppServices;
}): Promise<ReviewDownload> | null {
  const { pathname, searchParams, services } = options;
  const patch = PATCH_PATH.exec(pathname);
  if (patch) {
    const subject = subjectOf(patch);
    return "sessionId" in subject ? services.review.sessionPatch(subject) : services.review.patch(subject);
  }
  const file = FILE_PATH.exec(pathname);
  if (!file) return null;
  const pathKey = pathKeySchema.safeParse(searchParams.get("pathKey") ?? "");
  const side = reviewFileSideSchema.safeParse(searchParams.get("side") ?? "");
  if (!pathKey.success || !side.success)
    return Promise.reject(
      new AppError({
        code: "BAD_REQUEST",
        message: "Name the file and the side: ?pathKey=<the file's pathKey>&side=before|after.",
      }),
    );
  return services.review.fileBytes({ ...subjectOf(file), pathKey: pathKey.data, side: side.data });
}

/** Streams a download with backpressure; a client that goes away stops the producer. */
export async function sendDownload(options: {
  res: http.ServerResponse;
  download: ReviewDownload;
  attachment: (fileName: string) => string;
}): Promise<void> {
  const { res, download } = options;
  res.setHeader("Content-Type", download.contentType);
  res.setHeader("Content-Disposition", options.attachment(download.fileName));
  if (download.size !== null) res.setHeader("Content-Length", String(download.size));
  try {
    await pipeline(Readable.from(download.chunks), res);
  } catch (error) {
    if (!res.headersSent) throw error;
    res.destroy(); // cut short: the client sees an incomplete download, never a wrong one
  }
}
