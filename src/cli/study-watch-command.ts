import { studyOutput } from "./cli-views";
import { UsageError } from "./usage-error";
import { downloadText } from "./dashboard-download";
import { writeWhole } from "./export-command";
import { describeStudy, exitForFinished, progressLine, studyFor, watchStudy } from "./study-progress";
import { onePositional, resolveStudyId, runWorkflow, type WorkflowOptions } from "./workflow-cli";

/** `study wait`, `study follow` and `study export`: the study commands that watch or download. */

/** Waits until the study is over; prints it as `study show` does. Exit 0 done, 3 refused/stopped, 4 --timeout. */
export function runStudyWait(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "study wait", async (context) => {
    const first = await studyFor(context, "invariant-web study wait STUDY [--timeout SECONDS] (or --last)");
    const { io } = context;
    const study = await watchStudy({
      context,
      studyId: first.id,
      onChange: (seen, finished) => {
        if (!context.json && io.isTTY && !finished) io.err(`\r\x1b[2K${progressLine(seen)}`);
      },
    });
    if (!context.json && io.isTTY) io.err("\r\x1b[2K");
    return { data: { study: studyOutput(study) }, human: describeStudy(study), exit: exitForFinished(study) };
  });
}

/**
 * Streams the study's progress until it is over: a live line on a terminal (a line per change
 * otherwise); with --json one envelope per change, the last with `event: "end"`.
 */
export function runStudyFollow(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "study follow", async (context) => {
    const first = await studyFor(context, "invariant-web study follow STUDY (or --last)");
    const { io } = context;
    const live = !context.json && io.isTTY;
    const study = await watchStudy({
      context,
      studyId: first.id,
      onChange: (seen, finished) => {
        if (context.json)
          context.emitLine(
            "study follow",
            { event: finished ? "end" : "progress", study: studyOutput(seen) },
            finished ? (exitForFinished(seen) === "ok" ? 0 : 3) : 0,
          );
        else if (live) io.out(`\r\x1b[2K${progressLine(seen)}${finished ? "\n" : ""}`);
        else io.out(`${progressLine(seen)}\n`);
      },
    });
    return {
      data: { event: "end", study: studyOutput(study) },
      human: "",
      exit: exitForFinished(study),
      printed: true,
    };
  });
}

const FORMATS = ["md", "json", "csv"] as const;

/** A study's report through the dashboard's download endpoint; with --output written whole or not at all. */
export function runStudyExport(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "study export", async (context) => {
    const { config } = context;
    const example = "invariant-web study export STUDY [--format md|json|csv] [--output FILE] (or --last)";
    const format = FORMATS.find((f) => f === (config.format ?? (config.json ? "json" : "md")));
    if (!format) throw new UsageError(`--format must be md, json or csv, not "${config.format}".`);
    const studyId = await resolveStudyId(context, { ref: onePositional(config, "study", example), example });
    const body = await downloadText({
      context,
      pathname: `/api/studies/${encodeURIComponent(studyId)}/report.${format}`,
      notFound: `No study "${studyId}".`,
    });
    const bytes = Buffer.byteLength(body);
    if (config.output) {
      writeWhole(config.output, body);
      context.io.err(`Wrote the ${format} report of ${studyId} to ${config.output}\n`);
    }
    return {
      data: {
        studyId,
        format,
        output: config.output,
        bytes,
        report: config.output ? null : format === "json" ? (JSON.parse(body) as Record<string, unknown>) : body,
      },
      human: config.output ? "" : body,
    };
  });
}
