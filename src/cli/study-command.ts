import { MAX_ADDED_REPEATS } from "../shared/study-repeats";
import { RETRYABLE_TRIAL_STATES } from "../shared/vocabulary";
import { studyOutput, studySummaryOutput } from "./cli-views";
import { UsageError } from "./usage-error";
import { readStudyFile } from "./study-file";
import { describeStudy, studyFor } from "./study-progress";
import { runStudyExport, runStudyFollow, runStudyWait } from "./study-watch-command";
import { CliRefusal, resolveProject, runWorkflow, usageFailure, type WorkflowOptions } from "./workflow-cli";

/**
 * `invariant-web study create|list|show|follow|stop|retry|repeat|wait|choose|export`: thin over the
 * dashboard's studies API. A study is named by its id or, with --last, is the most recent one.
 */

const CREATE_EXAMPLE = "invariant-web study create --file study.json";

function create(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "study create", async (context) => {
    const { config } = context;
    if (!config.workflow.file) throw new UsageError(`name the study file with --file, e.g. ${CREATE_EXAMPLE}`);
    const fromFlags =
      config.project || config.workflow.last
        ? await resolveProject(context, { ref: config.project, example: CREATE_EXAMPLE })
        : null;
    const { input, projectRef } = readStudyFile({ file: config.workflow.file, projectId: fromFlags?.id ?? null });
    const project =
      fromFlags ?? (await resolveProject(context, { ref: projectRef ?? input.projectId, example: CREATE_EXAMPLE }));
    const study = await (await context.api()).studies.create.mutate({ ...input, projectId: project.id });
    return {
      data: { study: studyOutput(study) },
      human: `Created study ${study.id} "${study.title}" on ${study.projectName} (${study.trials.length} trials; preflight running).\nFollow it: invariant-web study follow ${study.id}`,
    };
  });
}

function retry(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "study retry", async (context) => {
    const study = await studyFor(context, "invariant-web study retry STUDY [--trial T …]");
    const wanted = context.config.workflow.trials;
    const trialIds =
      wanted.length > 0
        ? wanted
        : study.trials.filter((t) => RETRYABLE_TRIAL_STATES.includes(t.state)).map((t) => t.id);
    if (trialIds.length === 0)
      throw new CliRefusal(
        `No trial of study ${study.id} can be retried (only ended, unsuccessful ones can).`,
        "CONFLICT",
      );
    const after = await (await context.api()).studies.retry.mutate({ studyId: study.id, trialIds });
    return {
      data: { study: studyOutput(after), retried: trialIds },
      human: `Retrying ${trialIds.length} trial(s) of ${after.id}: ${trialIds.join(", ")}`,
    };
  });
}

function repeat(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "study repeat", async (context) => {
    const study = await studyFor(context, "invariant-web study repeat STUDY [--repeats N]");
    const repeats = context.config.workflow.repeats ?? 1;
    if (repeats < 1 || repeats > MAX_ADDED_REPEATS) throw new UsageError(`--repeats is 1..${MAX_ADDED_REPEATS}.`);
    const before = new Set(study.trials.map((trial) => trial.id));
    const after = await (await context.api()).studies.addRepeats.mutate({ studyId: study.id, repeats });
    const added = after.trials.filter((trial) => !before.has(trial.id)).map((trial) => trial.id);
    return {
      data: { study: studyOutput(after), added },
      human: `Added ${repeats} repeat(s) to every configuration of ${after.id}: ${added.length} trial(s) queued.\nFollow it: invariant-web study follow ${after.id}`,
    };
  });
}

function choose(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "study choose", async (context) => {
    const { workflow } = context.config;
    const example = "invariant-web study choose STUDY --trial T [--note TEXT] (or --clear)";
    if (workflow.clear === (workflow.trials.length === 1) || workflow.trials.length > 1)
      throw new UsageError(`name one trial with --trial, or pass --clear, e.g. ${example}`);
    const study = await studyFor(context, example);
    const after = await (
      await context.api()
    ).studies.choose.mutate({
      studyId: study.id,
      trialId: workflow.clear ? null : (workflow.trials[0] ?? null),
      ...(workflow.note !== null ? { note: workflow.note } : {}),
    });
    return {
      data: { study: studyOutput(after) },
      human: after.chosen
        ? `Chose trial ${after.chosen.trialId} as the result of ${after.id}. Apply it: invariant-web apply --trial ${after.chosen.trialId}`
        : `Cleared the chosen result of ${after.id}.`,
    };
  });
}

export function runStudyCommand(options: WorkflowOptions): Promise<number> {
  const action = options.config.positionals[0];
  switch (action) {
    case "create":
      return create(options);
    case "list":
      return runWorkflow(options, "study list", async (context) => {
        const projectId = context.config.project
          ? (await resolveProject(context, { ref: context.config.project, example: "invariant-web study list" })).id
          : undefined;
        const studies = await (await context.api()).studies.list.query(projectId ? { projectId } : {});
        return {
          data: { studies: studies.map(studySummaryOutput) },
          human:
            studies.length === 0
              ? `No studies yet: ${CREATE_EXAMPLE}`
              : studies
                  .map((s) => `${s.id}\t${s.state}\t${s.counts.total} trials\t${s.projectName}\t${s.title}`)
                  .join("\n"),
        };
      });
    case "show":
      return runWorkflow(options, "study show", async (context) => {
        const study = await studyFor(context, "invariant-web study show STUDY (or --last)");
        return { data: { study: studyOutput(study) }, human: describeStudy(study) };
      });
    case "stop":
      return runWorkflow(options, "study stop", async (context) => {
        const study = await studyFor(context, "invariant-web study stop STUDY (or --last)");
        const after = await (await context.api()).studies.stop.mutate({ studyId: study.id });
        return { data: { study: studyOutput(after) }, human: `Stopping study ${after.id} (${after.state}).` };
      });
    case "retry":
      return retry(options);
    case "repeat":
      return repeat(options);
    case "choose":
      return choose(options);
    case "wait":
      return runStudyWait(options);
    case "follow":
      return runStudyFollow(options);
    case "export":
      return runStudyExport(options);
    default:
      return usageFailure(
        options,
        "study",
        'use "create", "list", "show", "follow", "wait", "stop", "retry", "repeat", "choose" or "export", e.g. invariant-web study create --file study.json, invariant-web study show --last',
      );
  }
}
