import { z } from "zod";
import { capturedFileRoleSchema } from "./captured-files";
import { agentConfigurationSchema, tokenBudgetSchema } from "./project-schemas";
import { configurationInputSchema, refusingUnknown } from "./configuration-input";

/**
 * Inputs of studies (experiments) and their trials, shared by server and browser (views: study-schemas.ts).
 * A study runs every configuration `repeats` times on one frozen snapshot and environment image, and
 * judges each trial with the same captured test files and test command.
 */

export { configurationInputSchema, type ConfigurationInput } from "./configuration-input";

export const MAX_TRIALS_PER_STUDY = 200;
export const MAX_TEST_FILE_BYTES = 5 * 1024 * 1024;
/** Captured files per study, after folders and patterns are expanded (and entries in the input). */
export const MAX_TEST_FILES = 2000;
/** All of a study's captured files together, after expansion. */
export const MAX_TEST_FILES_TOTAL_BYTES = 50 * 1024 * 1024;
/** All of a study's uploaded test files together (the form refuses a file that would pass it). */
export const MAX_TEST_UPLOAD_TOTAL_BYTES = 16 * 1024 * 1024;

/** The decoded size of base64 text (without decoding it). */
export function base64Bytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** A path relative to the project; with `folder`, a trailing "/" is allowed too (a folder of test files). */
function projectRelative(options: { folder: boolean; example: string }) {
  const bare = (value: string) => (options.folder ? value.replace(/\/$/, "") : value);
  return z
    .string()
    .trim()
    .min(1, `Enter a path relative to the project, for example ${options.example}.`)
    .max(1000, "Paths are at most 1,000 characters.")
    .refine((value) => !value.startsWith("/"), "Use a path relative to the project root, not an absolute one.")
    .refine(
      (value) =>
        !bare(value)
          .split("/")
          .some((segment) => segment === ".." || segment === "." || segment === ""),
      "A path may not contain empty, . or .. segments.",
    )
    .refine((value) => !value.includes("\0"), "A path may not contain a NUL byte.")
    .refine((value) => bare(value) !== ".git" && !value.startsWith(".git/"), "Files under .git cannot be test files.");
}
const relativePath = projectRelative({ folder: false, example: "test/calendar.test.js" });

/**
 * A project entry that names several files: a glob (`tests/**\/*.py`, `test/*.js`) or a folder (`test/`; a
 * plain `test` naming a directory is one too, found when the study is created). Expanded server side.
 */
export function isTestFilePattern(value: string): boolean {
  return /[*?[]/.test(value) || value.trim().endsWith("/");
}
/** A project path, or a folder (trailing "/") or glob of them. */
const projectPathOrPattern = projectRelative({
  folder: true,
  example: "test/calendar.test.js, test/ or tests/**/*.py",
});

/** What a captured file is for: a test, or runner configuration (package.json, pytest.ini, …); both are restored. */
const role = capturedFileRoleSchema.default("test");

export const testFileInputSchema = z.discriminatedUnion("source", [
  /** Read from the project directory when the study is created. */
  z.strictObject(
    { source: z.literal("project"), path: projectPathOrPattern, role },
    refusingUnknown(["source", "path", "role"]),
  ),
  /** Uploaded in the form: the bytes in base64. */
  z.strictObject(
    {
      source: z.literal("upload"),
      path: relativePath,
      role,
      contentBase64: z
        .string()
        .max(Math.ceil(MAX_TEST_FILE_BYTES / 3) * 4, "An uploaded test file is at most 5 MiB.")
        .regex(/^[A-Za-z0-9+/]*={0,2}$/, "The upload is not valid base64; choose the file again."),
    },
    refusingUnknown(["source", "path", "role", "contentBase64"]),
  ),
]);
export type TestFileInput = z.infer<typeof testFileInputSchema>;

export const MAX_STUDY_BUDGET_TOKENS = 10_000_000_000;
export const MAX_STUDY_BUDGET_DOLLARS = 1_000_000;
/** A study budget in tokens or US dollars (priced by the model price table); both may be set. */
export const studyBudgetInputSchema = z.strictObject({
  tokens: z
    .int({ error: "A token budget is a whole number of tokens." })
    .positive("A token budget must be above 0.")
    .max(MAX_STUDY_BUDGET_TOKENS, `A token budget is at most ${MAX_STUDY_BUDGET_TOKENS.toLocaleString("en-US")}.`)
    .nullable()
    .default(null),
  money: z
    .number({ error: "A budget in dollars is a number." })
    .finite()
    .positive("A budget in dollars must be above 0.")
    .max(
      MAX_STUDY_BUDGET_DOLLARS,
      `A budget in dollars is at most ${MAX_STUDY_BUDGET_DOLLARS.toLocaleString("en-US")}.`,
    )
    .nullable()
    .default(null),
});

const studyShape = {
  projectId: z.string().min(1, "Choose a project."),
  title: z.string().trim().min(1, "Give the study a title.").max(200, "Titles are at most 200 characters."),
  taskPrompt: z
    .string()
    .trim()
    .min(1, "Describe the task the agents should do.")
    .max(100_000, "The task is at most 100,000 characters."),
  testCommand: z
    .string()
    .trim()
    .min(1, "Enter the Linux command that runs the tests, for example npm test.")
    .max(10_000, "The test command is at most 10,000 characters."),
  junitPath: relativePath.nullable().default(null),
  testFiles: z.array(testFileInputSchema).max(MAX_TEST_FILES, `At most ${MAX_TEST_FILES} test files.`).default([]),
  configurations: z
    .array(configurationInputSchema)
    .min(1, "Add at least one configuration.")
    .max(20, "At most 20 configurations."),
  concurrency: z
    .number({ error: "Concurrency must be a number." })
    .int("Concurrency is a whole number.")
    .min(1, "At least 1 trial at a time.")
    .max(32, "At most 32 trials at a time.")
    .nullable()
    .default(null),
  agentTimeoutSec: z
    .number({ error: "The agent time limit must be a number." })
    .int("Whole seconds, please.")
    .min(10, "At least 10 seconds.")
    .max(86_400, "At most 24 hours (86,400 s).")
    .default(1800),
  evalTimeoutSec: z
    .number({ error: "The evaluation time limit must be a number." })
    .int("Whole seconds, please.")
    .min(5, "At least 5 seconds.")
    .max(86_400, "At most 24 hours (86,400 s).")
    .default(600),
  /** Input + output tokens the model gateway allows each trial; null: the project's run budget. */
  tokenBudget: tokenBudgetSchema.nullable().default(null),
  /** A budget over all the study's trials; reaching it stops the queued trials. */
  budget: studyBudgetInputSchema.optional(),
};

export const createStudyInputSchema = z
  .strictObject(studyShape, refusingUnknown(Object.keys(studyShape)))
  .superRefine((value, ctx) => {
    const trials = value.configurations.reduce((sum, configuration) => sum + configuration.repeats, 0);
    if (trials > MAX_TRIALS_PER_STUDY)
      ctx.addIssue({
        code: "custom",
        path: ["configurations"],
        message: `That is ${trials} trials; a study has at most ${MAX_TRIALS_PER_STUDY}. Lower the repeats.`,
      });
    const uploaded = value.testFiles.reduce(
      (sum, file) => sum + (file.source === "upload" ? base64Bytes(file.contentBase64) : 0),
      0,
    );
    if (uploaded > MAX_TEST_UPLOAD_TOTAL_BYTES)
      ctx.addIssue({
        code: "custom",
        path: ["testFiles"],
        message: `The uploaded test files come to ${(uploaded / 1024 / 1024).toFixed(1)} MiB; together they may be at most ${MAX_TEST_UPLOAD_TOTAL_BYTES / 1024 / 1024} MiB. Take the bigger ones from the project instead.`,
      });
    const seen = new Set<string>();
    value.testFiles.forEach((file, index) => {
      if (seen.has(file.path))
        ctx.addIssue({ code: "custom", path: ["testFiles", index, "path"], message: `${file.path} is listed twice.` });
      seen.add(file.path);
    });
    const junit = value.junitPath;
    if (junit)
      value.testFiles.forEach((file, index) => {
        if (file.path === junit || file.path.startsWith(`${junit}/`))
          ctx.addIssue({
            code: "custom",
            path: ["testFiles", index, "path"],
            message: `${file.path} is at the JUnit path, which is cleared before every evaluation; capture it elsewhere or change the JUnit path.`,
          });
      });
  });
export type CreateStudyInput = z.input<typeof createStudyInputSchema>;

export const studyIdInputSchema = z.object({ studyId: z.string().min(1) });
export const studyDefaultsInputSchema = z.object({ projectId: z.string().min(1, "Choose a project.") });
export const projectFilesInputSchema = z.object({
  projectId: z.string().min(1),
  query: z.string().max(500).default(""),
});
/**
 * A retry's edits to the trials' configuration. When they change it, the retried trials move to a new
 * configuration (the next number), so the other trials of the old one are not silently changed.
 */
export const retryConfigurationEditSchema = agentConfigurationSchema.pick({
  model: true,
  reasoningEffort: true,
  instructions: true,
});
export type RetryConfigurationEdit = z.infer<typeof retryConfigurationEditSchema>;
export const retryTrialsInputSchema = z.object({
  studyId: z.string().min(1),
  trialIds: z.array(z.string().min(1)).min(1, "Choose at least one trial to retry.").max(MAX_TRIALS_PER_STUDY),
  /** Retry with this model, effort and instructions instead of the configuration's own. */
  configuration: retryConfigurationEditSchema.optional(),
});
export type RetryTrialsInput = z.input<typeof retryTrialsInputSchema>;
export const trialIdInputSchema = z.object({ trialId: z.string().min(1) });
/** Reruns a whole study, or one of its trials, exactly from the manifests (a new study pointing to the original). */
export const rerunInputSchema = z.strictObject({
  studyId: z.string().min(1).max(200),
  trialId: z.string().min(1).max(200).optional(),
});
export type RerunInput = z.infer<typeof rerunInputSchema>;
export const MAX_CHOICE_NOTE_CHARS = 2000;
/** Marks a finished trial as the study's chosen result (`trialId: null` clears the choice). */
export const chooseTrialInputSchema = z.object({
  studyId: z.string().min(1),
  trialId: z.string().min(1).nullable(),
  note: z
    .string()
    .max(MAX_CHOICE_NOTE_CHARS, `A note is at most ${MAX_CHOICE_NOTE_CHARS.toLocaleString("en")} characters.`)
    .optional(),
});
export type ChooseTrialInput = z.infer<typeof chooseTrialInputSchema>;
export const trialLogInputSchema = z.object({
  trialId: z.string().min(1),
  tailBytes: z
    .number()
    .int()
    .min(1)
    .max(4 * 1024 * 1024)
    .default(64 * 1024),
});
export const listStudiesInputSchema = z.object({ projectId: z.string().optional() }).default({});
