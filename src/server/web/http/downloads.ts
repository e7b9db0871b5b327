import fs from "node:fs";
import type http from "node:http";
import { pipeline } from "node:stream/promises";
import type { AppServices } from "../wiring/app-services";
import { HTTP_STATUS, isAppError } from "../../core/errors/app-error";
import { reviewDownload, sendDownload } from "./review-downloads";

const REPORT_PATH = /^\/api\/studies\/([\w-]+)\/report\.(md|json|csv)$/;
const TRIAL_LOG_PATH = /^\/api\/trials\/([\w-]+)\/log$/;

function attachment(fileName: string): string {
  return `attachment; filename="${fileName.replace(/["\\\r\n]/g, "_")}"`;
}

function refuseDownload(res: http.ServerResponse, message: string, status = 404): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.end(JSON.stringify({ error: message }));
}

/**
 * Streams a log file; `pipeline` closes the file when the client goes away mid-download (a bare
 * `pipe` kept the descriptor open forever and its promise never settled).
 */
async function sendLogFile(res: http.ServerResponse, file: string): Promise<void> {
  try {
    await pipeline(fs.createReadStream(file), res);
  } catch (error) {
    if (!res.headersSent) throw error;
    res.destroy(); // cut short: the client sees an incomplete download, never a wrong one
  }
}

/**
 * File downloads for anyone with a valid token, admins and viewers alike: study reports, trial logs,
 * a trial's patch and either side of one of its files. Returns false when the path is not a download.
 */
export async function handleDownload(options: {
  pathname: string;
  searchParams?: URLSearchParams;
  services: AppServices;
  res: http.ServerResponse;
}): Promise<boolean> {
  const { pathname, services, res } = options;
  const report = REPORT_PATH.exec(pathname);
  const trialLog = TRIAL_LOG_PATH.exec(pathname);
  const review = reviewDownload({ pathname, searchParams: options.searchParams ?? new URLSearchParams(), services });
  if (!report && !trialLog && !review) return false;
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
  try {
    if (review) {
      await sendDownload({ res, download: await review, attachment });
      return true;
    }
    if (report) {
      const [, studyId = "", format = "md"] = report;
      const rendered = await services.studies.report({ studyId, format: format as "md" | "json" | "csv" });
      res.setHeader("Content-Type", rendered.contentType);
      res.setHeader("Content-Disposition", attachment(rendered.fileName));
      res.end(rendered.body);
      return true;
    }
    const file = await services.studies.trialLogFile(trialLog?.[1] ?? "");
    if (!file) {
      refuseDownload(res, "This trial has no log yet: it has not started.");
      return true;
    }
    res.setHeader("Content-Type", "text/plain; charset=utf-8");
    res.setHeader("Content-Disposition", attachment(file.fileName));
    await sendLogFile(res, file.path);
    return true;
  } catch (error) {
    if (isAppError(error) && error.code !== "INTERNAL_SERVER_ERROR") {
      refuseDownload(res, error.message, HTTP_STATUS[error.code]);
      return true;
    }
    throw error;
  }
}
