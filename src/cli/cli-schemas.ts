import { z } from "zod";
import { capturedFileRoleSchema } from "../shared/captured-files";
import { agentConfigurationSchema, projectSettingsSchema } from "../shared/project-schemas";
import { tokensSchema } from "../shared/token-usage";
import { diffSummarySchema } from "../shared/trial-result";
import { trialOutcomeSchema } from "../shared/trial-outcome";
import { verdictSchema } from "../shared/verdict-summary";
import { studyStateSchema, trialStateSchema } from "../shared/vocabulary";
import { count, isoDate } from "../shared/zod-fields";
import { dependencyStatusOutputSchema } from "./dependency-output";
import { feedbackCliSchemas } from "./feedback-output";
import { branchCliDataSchemas } from "./branch-output";

/**
 * What the workflow commands print with `--json` (docs/automation.md): one envelope per command,
 *
 *   { "schema": "invariant-web/cli", "version": 1, "command": "study show", "ok": true, "exitCode": 0, "data": … }
 *   { "schema": "invariant-web/cli", "version": 1, "command": "study show", "ok": false, "exitCode": 3, "error": … }
 *
 * and one envelope per line for `study follow --json`. `ok` is `exitCode === 0`. A command that got its
 * result prints `data` even when the outcome is not a success (an apply refused for conflicts: exit 3;
 * a build that failed: exit 1); one that could not get it prints `error`. Each command's `data` is
 * declared here.
 *
 * Versioning (as the study report's): `version` stays 1 for additive changes (a new field, a new enum
 * value); renaming or removing a field or changing its type or meaning bumps it. Readers ignore fields
 * they do not know; parsing with these schemas strips them.
 */
export const CLI_SCHEMA_ID = "invariant-web/cli";
export const CLI_OUTPUT_VERSION = 1;

// the exit codes and the error shape are shared with the MCP server's tool errors
export { EXIT, cliErrorSchema, type CliError, type ExitKind } from "../shared/automation-errors";
import { cliErrorSchema } from "../shared/automation-errors";

// ── shapes the commands share ────────────────────────────────────────────────────────────────────

export const projectOutputSchema = projectSettingsSchema.extend({
  id: z.string().min(1),
  hostPath: z.string().min(1),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type ProjectOutput = z.infer<typeof projectOutputSchema>;

const projectRefSchema = z.object({ id: z.string().min(1), name: z.string() });

export const environmentVersionOutputSchema = z.object({
  id: z.string().min(1),
  version: z.int().positive(),
  status: z.enum(["building", "ready", "failed"]),
  active: z.boolean(),
  origin: z.string(),
  command: z.string().nullable(),
  parentVersion: z.int().positive().nullable(),
  imageTag: z.string(),
  imageId: z.string().nullable(),
  durationMs: z.number().nullable(),
  sizeBytes: z.number().nullable(),
  error: z.string().nullable(),
  createdAt: isoDate,
  usedByStudies: count,
});
export type EnvironmentVersionOutput = z.infer<typeof environmentVersionOutputSchema>;

export const studyCountsOutputSchema = z.object({
  total: count,
  queued: count,
  running: count,
  succeeded: count,
  failed: count,
  error: count,
  stopped: count,
  interrupted: count,
});

export const studySummaryOutputSchema = z.object({
  id: z.string().min(1),
  projectId: z.string().min(1),
  projectName: z.string(),
  title: z.string(),
  state: studyStateSchema,
  /** The state as the dashboard shows it: `interrupted` for a done study whose trials were all interrupted. */
  shownState: z.union([studyStateSchema, z.literal("interrupted")]),
  /** Why the preflight refused the study (e.g. the tests already pass), or null. */
  refusal: z.string().nullable(),
  /** The preflight's verdict on the untouched snapshot. */
  baseline: verdictSchema.nullable(),
  counts: studyCountsOutputSchema,
  chosen: z.object({ trialId: z.string(), note: z.string().nullable(), by: z.string(), at: isoDate }).nullable(),
  createdAt: isoDate,
  finishedAt: isoDate.nullable(),
});
export type StudySummaryOutput = z.infer<typeof studySummaryOutputSchema>;

export const trialOutputSchema = z.object({
  id: z.string().min(1),
  /** The configuration's number ("Config 2"). */
  choice: z.int().positive(),
  repeat: z.int().positive(),
  attempt: z.int().positive(),
  state: trialStateSchema,
  outcome: trialOutcomeSchema.nullable(),
  step: z.string(),
  verdict: verdictSchema.nullable(),
  error: z.string().nullable(),
  exitCode: z.int().nullable(),
  agentSeconds: z.number().nullable(),
  evalSeconds: z.number().nullable(),
  tokens: tokensSchema,
  commandsRun: count,
  /** The trial's private workspace (what `apply --trial` applies), or null before it has one. */
  workspaceId: z.string().nullable(),
  diff: diffSummarySchema.nullable(),
  queuedAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
});
export type TrialOutput = z.infer<typeof trialOutputSchema>;

export const configurationOutputSchema = agentConfigurationSchema.extend({
  id: z.string().min(1),
  choice: z.int().positive(),
  /** The name the study page and reports show (unique in the study: src/shared/configuration-label.ts). */
  label: z.string().min(1),
  /** The label the study file or form gave; null: derived. */
  customLabel: z.string().nullable(),
  overrides: z.array(z.string()),
  command: z.string().nullable(),
  repeats: z.int().positive(),
  derivedFrom: z.int().positive().nullable(),
});

export const studyOutputSchema = studySummaryOutputSchema.extend({
  taskPrompt: z.string(),
  testCommand: z.string(),
  junitPath: z.string().nullable(),
  testFiles: z.array(z.object({ path: z.string(), role: capturedFileRoleSchema, bytes: count })),
  snapshotId: z.string().nullable(),
  environmentVersion: z.int().positive().nullable(),
  concurrency: z.int().positive(),
  agentTimeoutSec: z.int().positive(),
  evalTimeoutSec: z.int().positive(),
  tokenBudget: z.int().positive().nullable(),
  createdBy: z.string(),
  startedAt: isoDate.nullable(),
  configurations: z.array(configurationOutputSchema),
  trials: z.array(trialOutputSchema),
});
export type StudyOutput = z.infer<typeof studyOutputSchema>;

const pathChangeSchema = z.object({ path: z.string(), action: z.enum(["create", "modify", "delete"]) });
const conflictOutputSchema = z.object({ path: z.string(), reason: z.string(), message: z.string() });

export const applyPreviewOutputSchema = z.object({
  projectId: z.string(),
  workspaceId: z.string(),
  trialId: z.string().nullable(),
  /** What `--yes` confirms: the plan is applied only if it still has this hash. */
  planHash: z.string().regex(/^[0-9a-f]{64}$/),
  steps: z.array(pathChangeSchema),
  totals: z.object({ files: count, added: count, modified: count, deleted: count }),
  conflicts: z.array(conflictOutputSchema),
});

export const applyRecordOutputSchema = z.object({
  id: z.string().min(1),
  outcome: z.enum(["applied", "refused", "rolled-back", "failed", "undone"]),
  files: z.array(pathChangeSchema),
  conflicts: z.array(conflictOutputSchema),
  error: z.string().nullable(),
  appliedBy: z.string(),
  trialId: z.string().nullable(),
  createdAt: isoDate,
});

// ── each command's data ──────────────────────────────────────────────────────────────────────────

export const cliDataSchemas = {
  "project list": z.object({ projects: z.array(projectOutputSchema) }),
  "project add": z.object({ project: projectOutputSchema }),
  "project show": z.object({
    project: projectOutputSchema,
    /** The active environment version, or null when none is ready. */
    environment: environmentVersionOutputSchema.nullable(),
    /** The project's studies, newest first. */
    studies: z.array(studySummaryOutputSchema),
  }),
  /** The project pointed at its folder's new path. */
  "project relink": z.object({ project: projectOutputSchema }),
  "project settings": z.object({
    project: projectOutputSchema,
    /** The settings this call changed (empty when it only showed them). */
    changed: z.array(z.string()),
  }),
  "environment list": z.object({
    project: projectRefSchema,
    /** Newest first. */
    versions: z.array(environmentVersionOutputSchema),
    diskBytes: z.number(),
  }),
  "environment prepare": z.object({ project: projectRefSchema, version: environmentVersionOutputSchema }),
  "dependencies show": z.object({ project: projectRefSchema, dependencies: dependencyStatusOutputSchema }),
  "dependencies set": z.object({ project: projectRefSchema, dependencies: dependencyStatusOutputSchema }),
  /** The version the step made (ready, or failed with its error) and the status after it. */
  "dependencies install": z.object({
    project: projectRefSchema,
    version: environmentVersionOutputSchema,
    dependencies: dependencyStatusOutputSchema,
  }),
  "study create": z.object({ study: studyOutputSchema }),
  "study list": z.object({ studies: z.array(studySummaryOutputSchema) }),
  "study show": z.object({ study: studyOutputSchema }),
  "study wait": z.object({ study: studyOutputSchema }),
  /** One line per change; the last has `event: "end"`. */
  "study follow": z.object({ event: z.enum(["progress", "end"]), study: studyOutputSchema }),
  "study stop": z.object({ study: studyOutputSchema }),
  "study retry": z.object({ study: studyOutputSchema, retried: z.array(z.string()) }),
  "study repeat": z.object({ study: studyOutputSchema, added: z.array(z.string()) }),
  "study choose": z.object({ study: studyOutputSchema }),
  "study export": z.object({
    studyId: z.string(),
    format: z.enum(["md", "json", "csv"]),
    /** The file written with --output, or null when the report is in `report`. */
    output: z.string().nullable(),
    bytes: count,
    /** The report: the `invariant-web/study-report` object for json, the text for md/csv; null when written to a file. */
    report: z.union([z.record(z.string(), z.unknown()), z.string()]).nullable(),
  }),
  "trial log": z.object({ trialId: z.string(), text: z.string(), truncated: z.boolean() }),
  ...feedbackCliSchemas,
  "trial diff": z.object({
    trialId: z.string(),
    studyId: z.string(),
    totals: z.object({ files: count, insertions: count, deletions: count }).nullable(),
    files: z.array(
      z.object({
        path: z.string(),
        status: z.enum(["added", "modified", "deleted"]),
        binary: z.boolean(),
        insertions: count,
        deletions: count,
      }),
    ),
    /** The unified patch of the trial's changes against its snapshot. */
    patch: z.string(),
  }),
  apply: z.object({
    preview: applyPreviewOutputSchema,
    /** The outcome with --yes; null when only the plan was shown. */
    result: applyRecordOutputSchema.nullable(),
  }),
  ...branchCliDataSchemas,
} as const;
export type CliCommandName = keyof typeof cliDataSchemas;
export type CliData<C extends CliCommandName> = z.infer<(typeof cliDataSchemas)[C]>;

/** The envelope of a command that got its result (`ok` false when the outcome is not a success). */
export function cliResultSchema<C extends CliCommandName>(command: C) {
  return z
    .object({
      schema: z.literal(CLI_SCHEMA_ID),
      version: z.literal(CLI_OUTPUT_VERSION),
      command: z.literal(command),
      ok: z.boolean(),
      exitCode: z.int(),
      data: cliDataSchemas[command],
    })
    .refine((envelope) => envelope.ok === (envelope.exitCode === 0), { message: "ok is exitCode === 0", path: ["ok"] });
}

/** The envelope of any command that could not get its result (a usage error names the command group). */
export const cliFailureSchema = z.object({
  schema: z.literal(CLI_SCHEMA_ID),
  version: z.literal(CLI_OUTPUT_VERSION),
  command: z.string(),
  ok: z.literal(false),
  exitCode: z.int().positive(),
  error: cliErrorSchema,
});
