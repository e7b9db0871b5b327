import fs from "node:fs";
import path from "node:path";
import { openDb } from "../server/db/client";
import { applyMigrations } from "../server/db/migrate";
import { isAppError } from "../server/errors/app-error";
import { createStudyQueries } from "../server/studies/studies.queries";
import { renderStudyReport } from "../server/studies/study-report-builder";
import type { CliConfig } from "./config";

const FORMATS = ["md", "json", "csv"] as const;
type Format = (typeof FORMATS)[number];

/**
 * `invariant-web export STUDY [--format md|json|csv] [--output FILE]`: a study's report, read straight
 * from the data dir's database (the dashboard need not be running). With --output the file is written
 * whole or not at all (a temporary file renamed into place).
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
  const databaseFile = path.join(config.dataDir, "invariant.db");
  if (!fs.existsSync(databaseFile)) {
    err.write(
      `invariant-web export: no database in ${config.dataDir}. Pass the data dir the dashboard uses (--data-dir or INVARIANT_DATA_DIR).\n`,
    );
    return 1;
  }
  applyMigrations({ databaseFile, migrationsDir: path.join(options.root, "prisma", "migrations") });
  const db = await openDb({ file: databaseFile });
  try {
    const study = await createStudyQueries(db).find(studyId);
    if (!study) {
      err.write(
        `invariant-web export: no study "${studyId}" in ${config.dataDir}. The study list in the dashboard shows each study's id in its address.\n`,
      );
      return 1;
    }
    const report = renderStudyReport({ study, format, generatedAt: new Date() });
    if (!config.output) {
      out.write(report.body);
      return 0;
    }
    const temp = `${config.output}.tmp-${process.pid}`;
    try {
      fs.writeFileSync(temp, report.body);
      fs.renameSync(temp, config.output);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      err.write(
        `invariant-web export: could not write ${config.output}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return 1;
    }
    err.write(`Wrote the ${format} report of "${study.title}" to ${config.output}\n`);
    return 0;
  } catch (error) {
    err.write(
      `invariant-web export: ${isAppError(error) ? error.message : error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  } finally {
    await db.$disconnect();
  }
}
