import type { StudyReport } from "../../../shared/study-report";
import { parseStudyReport } from "./parse-study-report";

/** The report as JSON: validated, fields in schema order, unknown fields dropped, 2-space indent, final newline. */
export function renderJsonReport(report: StudyReport): string {
  return `${JSON.stringify(parseStudyReport(report), null, 2)}\n`;
}
