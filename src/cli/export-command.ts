import fs from "node:fs";
import { isAppError } from "../server/core/errors/app-error";
import type { CliConfig } from "./config";
import { openDatabaseOffline, runningLauncher } from "./database-access";
import { messageOf } from "../shared/error-message";

const FORMATS = ["md", "json", "csv"] as const;
type Format = (typeof FORMATS)[number];

interface Report {
  title: string;
  body: string;
}

/** Reads a study's report through the running dashboard (its download endpoint, with the admin token). */
async function reportFromDashboard(options: {
  dataDir: string;
  studyId: string;
  format: Format;
}): Promise<Report | null> {
  const { connectDashboard } = await import("./dashboard-client");
  const dashboard = connectDashboard(options.dataDir);
  const response = await dashboard.fetch(
    `/api/studies/${encodeURIComponent(options.studyId)}/report.${options.format}`,
  );
  if (response.status === 404) return null;
  if (!response.ok)
    throw new Error(`the dashboard answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const body = await response.text();
  const study = await dashboard.api.studies.get.query({ studyId: options.studyId });
  return { title: study.title, body };
}

/** Reads a study's report from the database, under the data-dir lock (no dashboard runs). */
async function reportOffline(options: {
  dataDir: string;
  root: string;
  studyId: string;
  format: Format;
}): Promise<Report | null> {
  const offline = await openDatabaseOffline({ ...options, whatFor: "no study can exist there" });
  try {
    const [{ createStudyQueries }, { renderStudyReport }] = await Promise.all([
      import("../server/web/studies/studies.queries"),
      import("../server/web/studies/study-report-builder"),
    ]);
    const study = await createStudyQueries(offline.db).find(options.studyId);
    if (!study) return null;
    return {
      title: study.title,
      body: renderStudyReport({ study, format: options.format, generatedAt: new Date() }).body,
    };
  } finally {
    await offline.close();
  }
}

/** Writes the file whole or not at all (a temporary file renamed into place). */
export function writeWhole(file: string, body: string): void {
  const temp = `${file}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(temp, body);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw new Error(`could not write ${file}: ${messageOf(error)}`);
  }
}

/**
 * `invariant-web export STUDY [--format md|json|csv] [--output FILE]`: a study's report, through the
 * running dashboard or, when none runs, from the data dir's database (the CLI's one rule:
 * database-access.ts). With --output the file is written whole or not at all.
 */
export async function runExportCommand(options: {
  config: CliConfig;
  root: string;
  out?: NodeJS.WritableStream;
  err?: NodeJS.WritableStream;
}): Promise<number> {
  const { config } = options;
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const [studyId, extra] = config.positionals;
  if (!studyId || extra !== undefined) {
    err.write(
      "invariant-web export: name one study, e.g. invariant-web export cm7abc123 --format csv --output results.csv\n",
    );
    return 2;
  }
  const format = (config.format ?? "md") as Format;
  if (!FORMATS.includes(format)) {
    err.write(`invariant-web export: --format must be md, json or csv, not "${config.format}".\n`);
    return 2;
  }
  try {
    const { dataDir } = config;
    const report =
      runningLauncher(dataDir) !== null
        ? await reportFromDashboard({ dataDir, studyId, format })
        : await reportOffline({ dataDir, root: options.root, studyId, format });
    if (!report) {
      err.write(
        `invariant-web export: no study "${studyId}" in ${dataDir}. The study list in the dashboard shows each study's id in its address.\n`,
      );
      return 1;
    }
    if (!config.output) {
      out.write(report.body);
      return 0;
    }
    writeWhole(config.output, report.body);
    err.write(`Wrote the ${format} report of "${report.title}" to ${config.output}\n`);
    return 0;
  } catch (error) {
    err.write(`invariant-web export: ${isAppError(error) ? error.message : messageOf(error)}\n`);
    return 1;
  }
}
