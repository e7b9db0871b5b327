import { z } from "zod";
import { STUDY_REPORT_VERSION, studyReportSchema, type StudyReport } from "../../../shared/study-report";
import { AppError } from "../../core/errors/app-error";

/**
 * Checks a report against the current version's schema before anything renders it. A report that does not
 * match is a bug in whatever built it, so it is refused with every problem named (path and reason);
 * the `ZodError` is the cause.
 */
export function parseStudyReport(report: unknown): StudyReport {
  const parsed = studyReportSchema.safeParse(report);
  if (parsed.success) return parsed.data;
  throw new AppError({
    code: "INTERNAL_SERVER_ERROR",
    message: `The study report does not match the report schema (version ${STUDY_REPORT_VERSION}):\n${z.prettifyError(parsed.error)}`,
    cause: parsed.error,
  });
}
