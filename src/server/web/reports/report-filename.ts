import type { StudyReport } from "../../../shared/study-report";

export type ReportFormat = "md" | "json" | "csv";

const MAX_SLUG = 48;

/** Lowercase ASCII letters and digits joined by single hyphens; accents are dropped, other text removed. */
export function slugify(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.slice(0, MAX_SLUG).replace(/-+$/, "");
}

/**
 * `study-<slug of the title>-<id>.<format>`, for a download or `--output` default. Only `[a-z0-9._-]`
 * (the id keeps its case): no path separators, no leading dot, nothing a shell or a browser must quote.
 */
export function reportFileName(options: {
  report: { study: Pick<StudyReport["study"], "id" | "title"> };
  format: ReportFormat;
}): string {
  const slug = slugify(options.report.study.title);
  const id =
    options.report.study.id
      .replace(/[^A-Za-z0-9_-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 64) || "unknown";
  return `study-${slug ? `${slug}-` : ""}${id}.${options.format}`;
}
