import { z } from "zod";
import { CliInputError, CliTimeout, fieldErrorsOf } from "../../../shared/automation-errors";
import { chooseTrialInputSchema, createStudyInputSchema, studyIdInputSchema } from "../../../shared/study-inputs";
import { FINISHED_STUDY_STATES } from "../../../shared/vocabulary";
import type { StudyView } from "../../../shared/study-schemas";
import { defineTool, projectRefSchema, sleep, waitSecondsSchema, type ToolAnswer } from "./mcp-tool";
import { resolveProject } from "./project-ref";
import { studyBrief, studyLine, studySummaryBrief } from "./study-brief";

/** study_list, study_create, study_show, study_wait, study_choose. */

const POLL_MS = 1000;

export const studyList = defineTool({
  name: "study_list",
  title: "List studies",
  description:
    "The studies, newest first (of one project when `project` is given): state, counts, baseline, chosen result.",
  access: "read",
  input: z.strictObject({ project: projectRefSchema.optional() }),
  run: async (input, { backend }) => {
    const projectId = input.project ? (await resolveProject(backend.api, input.project)).id : undefined;
    const studies = await backend.api.studies.list.query(projectId ? { projectId } : {});
    return { data: { studies: studies.map(studySummaryBrief) } };
  },
});

/** The study file's fields (createStudyInputSchema), the project named as in a study file: by id, name or directory. */
const { projectId: _projectId, ...studyFields } = createStudyInputSchema.shape;
void _projectId;

export const studyCreate = defineTool({
  name: "study_create",
  title: "Create a study",
  description:
    "Starts a study: a task, the Linux test command and captured test files, 1..20 configurations (harness, model, reasoning effort, instructions, repeats). The same fields as a study file for `invariant-web study create --file` (docs/automation.md). Returns at once with the study in preflight; follow it with study_wait.",
  access: "write",
  input: z.strictObject({ project: projectRefSchema, ...studyFields }),
  run: async ({ project: ref, ...fields }, { backend }) => {
    const project = await resolveProject(backend.api, ref);
    // the whole schema again, with the checks across fields (trial count, upload size, duplicate paths)
    const parsed = createStudyInputSchema.safeParse({ ...fields, projectId: project.id });
    if (!parsed.success) throw new CliInputError("The study is not valid:", fieldErrorsOf(parsed.error));
    const study = await backend.api.studies.create.mutate(parsed.data);
    return {
      data: { study: studyBrief(study) },
      text: `Created study ${study.id} "${study.title}" on ${study.projectName} (${study.trials.length} trials; preflight running). Wait for it with study_wait.`,
    };
  },
});

/** A study that is over: ok when done; refused, stopped or all trials interrupted is a refusal. */
function finishedAnswer(study: StudyView): ToolAnswer {
  const brief = studyBrief(study);
  if (study.shownState === "done") return { data: { study: brief }, text: studyLine(study) };
  return {
    data: { study: brief },
    text: studyLine(study),
    refused: {
      message: `The study ended ${study.shownState}${study.refusal ? `: ${study.refusal}` : "."}`,
      code: "CONFLICT",
    },
  };
}

export const studyShow = defineTool({
  name: "study_show",
  title: "Show a study",
  description:
    "A study's state, baseline (the tests before any agent ran), configurations and every trial's state and verdict (tests passed / total).",
  access: "read",
  input: studyIdInputSchema,
  run: async (input, { backend }) => {
    const study = await backend.api.studies.get.query(input);
    return { data: { study: studyBrief(study) }, text: studyLine(study) };
  },
});

const signature = (s: StudyView) =>
  JSON.stringify([
    s.state,
    s.baseline?.passed ?? null,
    s.trials.map((t) => [t.id, t.state, t.step, t.verdict?.passed ?? null]),
  ]);

export const studyWait = defineTool({
  name: "study_wait",
  title: "Wait for a study",
  description:
    "Waits until a study is over (done, refused or stopped), sending progress notifications as its trials move when the call asks for them. After waitSeconds it answers with a timeout error: call it again to keep waiting.",
  access: "read",
  input: studyIdInputSchema.extend({ waitSeconds: waitSecondsSchema("the study's end") }),
  run: async ({ studyId, waitSeconds }, context) => {
    const { api } = context.backend;
    const deadline = Date.now() + waitSeconds * 1000;
    let last = "";
    let changes = 0;
    for (;;) {
      const study = await api.studies.get.query({ studyId });
      if (FINISHED_STUDY_STATES.includes(study.state)) return finishedAnswer(study);
      const now = signature(study);
      if (now !== last) {
        last = now;
        changes += 1;
        const ended = study.trials.filter((t) => t.finishedAt !== null).length;
        await context.progress({
          progress: changes,
          message: studyLine(study) + ` ${ended}/${study.trials.length} trials ended.`,
        });
      }
      if (Date.now() >= deadline || context.signal.aborted)
        throw new CliTimeout(`${studyLine(study)} Still running after ${waitSeconds} s: call study_wait again.`);
      await sleep(POLL_MS, context.signal);
    }
  },
});

export const studyChoose = defineTool({
  name: "study_choose",
  title: "Choose a study's result",
  description:
    "Marks a finished trial as the study's chosen result (with an optional note), or clears the choice with trialId null. Apply it with apply_plan then apply.",
  access: "write",
  input: chooseTrialInputSchema,
  run: async (input, { backend }) => {
    const study = await backend.api.studies.choose.mutate(input);
    return {
      data: { study: studySummaryBrief(study) },
      text: study.chosen
        ? `Chose ${study.chosen.trialId} as the result of ${study.id}.`
        : `Cleared the chosen result of ${study.id}.`,
    };
  },
});
