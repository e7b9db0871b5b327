import type { CreateStudyInput } from "../../../shared/study-inputs";
import { SCRIPTED_MODEL_PREFIX } from "../../../shared/model-source";

/** The model the demo runs on with model access (three reasoning efforts of it). */
export const DEMO_MODEL = "gpt-5-codex";
export const DEMO_TITLE_PREFIX = "Demo:";
export const DEMO_PROJECT_NAME = "calendar (demo)";

/**
 * On the scripted model, each effort has its script: the bundled mock model fixes none, some (4 of
 * the 8 functions: 13/23) or all of the calendar, so the whole flow can be seen offline.
 */
const SCRIPTED_BY_EFFORT = { low: "calendar-fix-none", medium: "calendar-fix-some", high: "calendar-fix-all" } as const;

/** The demo study: the calendar task, its 23 shared checks, low / medium / high effort of one model. */
export function demoStudyInput(options: { projectId: string; scripted: boolean }): CreateStudyInput {
  const efforts = ["low", "medium", "high"] as const;
  return {
    projectId: options.projectId,
    title: `${DEMO_TITLE_PREFIX} fix the calendar — low, medium and high effort${options.scripted ? " (scripted model)" : ""}`,
    taskPrompt:
      "Implement every function in src/calendar.js (Gregorian dates as YYYY-MM-DD strings, no Date objects, no dependencies) so that the tests in test/ pass. Do not change the tests.",
    testCommand: "node --test",
    junitPath: null,
    testFiles: [{ source: "project", path: "test/calendar.test.js", role: "test" }],
    configurations: efforts.map((reasoningEffort) => ({
      harness: "codex",
      model: options.scripted ? `${SCRIPTED_MODEL_PREFIX}${SCRIPTED_BY_EFFORT[reasoningEffort]}` : DEMO_MODEL,
      reasoningEffort,
      instructions: "",
      overrides: [],
      command: "",
      repeats: 1,
    })),
    concurrency: 3,
  };
}
