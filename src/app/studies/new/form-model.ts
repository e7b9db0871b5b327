import type { ZodError } from "zod";
import { suggestedRole, type CapturedFileRole } from "../../../shared/captured-files";
import type { CreateStudyInput } from "../../../shared/study-inputs";
import type { StudyDefaultsView, StudyView } from "../../../shared/study-schemas";
import { REASONING_EFFORTS, type HarnessKind, type ReasoningEffort } from "../../../shared/vocabulary";

export type Harness = HarnessKind;
export type Effort = ReasoningEffort;
export const EFFORTS: readonly Effort[] = REASONING_EFFORTS;

/**
 * One configuration row as typed. `null` means "not touched: use the project's default" so the row
 * follows the defaults when they load or the project changes, without copying them in an effect.
 */
export interface ConfigurationDraft {
  key: string;
  /** The explicit label; empty: derived (the field's placeholder shows what it will read). */
  label: string;
  harness: Harness | null;
  model: string | null;
  reasoningEffort: Effort | null;
  instructions: string | null;
  command: string;
  repeats: string;
}

export interface TestFileDraft {
  key: string;
  source: "project" | "upload";
  path: string;
  /** Uploads only. */
  contentBase64?: string;
  bytes?: number;
  /** A folder or glob: how many files it matched when it was added (the server expands it at creation). */
  matches?: number;
  fileName?: string;
  /** Test or runner config; unset = guessed from the name (package.json, pytest.ini, … are config). */
  role?: CapturedFileRole;
}

export interface StudyDraft {
  projectId: string;
  title: string;
  taskPrompt: string;
  testCommand: string;
  junitPath: string;
  testFiles: TestFileDraft[];
  configurations: ConfigurationDraft[];
  /** `null`: use the default from `studies.defaults`. */
  concurrency: string | null;
  agentTimeoutSec: string | null;
  evalTimeoutSec: string | null;
  tokenBudget: string | null;
  /** The study's budget over all trials; empty: none. */
  budgetTokens: string;
  budgetMoney: string;
}

/** Field errors by full input path (`configurations.1.model`), as the server sends them. */
export type FieldErrors = Record<string, string>;

let counter = 0;
export function newKey(): string {
  counter += 1;
  return `k${counter}-${Date.now().toString(36)}`;
}

export function emptyConfiguration(): ConfigurationDraft {
  return {
    key: newKey(),
    label: "",
    harness: null,
    model: null,
    reasoningEffort: null,
    instructions: null,
    command: "",
    repeats: "1",
  };
}

export function emptyDraft(projectId: string): StudyDraft {
  return {
    projectId,
    title: "",
    taskPrompt: "",
    testCommand: "",
    junitPath: "",
    testFiles: [],
    configurations: [emptyConfiguration()],
    concurrency: null,
    agentTimeoutSec: null,
    evalTimeoutSec: null,
    tokenBudget: null,
    budgetTokens: "",
    budgetMoney: "",
  };
}

/**
 * "New study like this": the form filled from an existing study — its task, test command, captured test
 * files (read again from the project when created), configurations with their repeats, limits and budget.
 */
export function draftFromStudy(study: StudyView): StudyDraft {
  return {
    ...emptyDraft(study.projectId),
    title: `${study.title} (again)`.slice(0, 200),
    taskPrompt: study.taskPrompt,
    testCommand: study.testCommand,
    junitPath: study.junitPath ?? "",
    testFiles: study.testFiles.map((file) => ({ key: newKey(), source: "project", path: file.path, role: file.role })),
    configurations: study.configurations.map((configuration) => ({
      key: newKey(),
      label: configuration.customLabel ?? "",
      harness: configuration.harness,
      // a command line has no model in the form (stored ones read "(command)")
      model: configuration.harness === "command" ? null : configuration.model,
      reasoningEffort: configuration.reasoningEffort,
      instructions: configuration.instructions,
      command: configuration.command ?? "",
      repeats: String(configuration.repeats),
    })),
    concurrency: String(study.concurrency),
    agentTimeoutSec: String(study.agentTimeoutSec),
    evalTimeoutSec: String(study.evalTimeoutSec),
    tokenBudget: study.tokenBudget === null ? null : String(study.tokenBudget),
    budgetTokens: study.budget.tokens === null ? "" : String(study.budget.tokens),
    budgetMoney: study.budget.money === null ? "" : String(study.budget.money),
  };
}

export interface ResolvedConfiguration {
  label: string;
  harness: Harness;
  model: string;
  reasoningEffort: Effort;
  instructions: string;
  command: string;
  repeats: string;
}

export function resolveConfiguration(
  row: ConfigurationDraft,
  defaults: StudyDefaultsView | undefined,
): ResolvedConfiguration {
  return {
    label: row.label,
    harness: row.harness ?? defaults?.configuration.harness ?? "codex",
    model: row.model ?? defaults?.configuration.model ?? "",
    reasoningEffort: row.reasoningEffort ?? defaults?.configuration.reasoningEffort ?? "medium",
    instructions: row.instructions ?? defaults?.configuration.instructions ?? "",
    command: row.command,
    repeats: row.repeats,
  };
}

/** A number field's text as the schema wants it: NaN for text that is not a number (the schema says so). */
function numberFrom(text: string): number {
  return text.trim() === "" ? Number.NaN : Number(text);
}

export function resolvedNumbers(
  draft: StudyDraft,
  defaults: StudyDefaultsView | undefined,
): { concurrency: string; agentTimeoutSec: string; evalTimeoutSec: string; tokenBudget: string } {
  return {
    concurrency: draft.concurrency ?? (defaults ? String(defaults.concurrency) : ""),
    agentTimeoutSec: draft.agentTimeoutSec ?? String(defaults?.agentTimeoutSec ?? 1800),
    evalTimeoutSec: draft.evalTimeoutSec ?? String(defaults?.evalTimeoutSec ?? 600),
    tokenBudget: draft.tokenBudget ?? (defaults ? String(defaults.tokenBudget) : ""),
  };
}

export function toInput(draft: StudyDraft, defaults: StudyDefaultsView | undefined): CreateStudyInput {
  const numbers = resolvedNumbers(draft, defaults);
  return {
    projectId: draft.projectId,
    title: draft.title,
    taskPrompt: draft.taskPrompt,
    testCommand: draft.testCommand,
    junitPath: draft.junitPath.trim() === "" ? null : draft.junitPath,
    testFiles: draft.testFiles.map((file) =>
      file.source === "upload"
        ? {
            source: "upload" as const,
            path: file.path,
            contentBase64: file.contentBase64 ?? "",
            role: file.role ?? suggestedRole(file.path),
          }
        : { source: "project" as const, path: file.path, role: file.role ?? suggestedRole(file.path) },
    ),
    configurations: draft.configurations.map((row) => {
      const resolved = resolveConfiguration(row, defaults);
      const command = resolved.harness === "command";
      return {
        label: resolved.label,
        harness: resolved.harness,
        // fields a harness does not use are not shown, so they are not sent either
        model: command ? "" : resolved.model,
        reasoningEffort: resolved.reasoningEffort,
        instructions: resolved.instructions,
        command: command ? resolved.command : "",
        repeats: numberFrom(resolved.repeats),
      };
    }),
    concurrency: numbers.concurrency.trim() === "" ? null : numberFrom(numbers.concurrency),
    agentTimeoutSec: numberFrom(numbers.agentTimeoutSec),
    evalTimeoutSec: numberFrom(numbers.evalTimeoutSec),
    tokenBudget: numbers.tokenBudget.trim() === "" ? null : numberFrom(numbers.tokenBudget),
    ...(draft.budgetTokens.trim() === "" && draft.budgetMoney.trim() === ""
      ? {}
      : {
          budget: {
            tokens: draft.budgetTokens.trim() === "" ? null : numberFrom(draft.budgetTokens),
            money: draft.budgetMoney.trim() === "" ? null : numberFrom(draft.budgetMoney),
          },
        }),
  };
}

export function errorsFromZod(error: ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join(".");
    errors[key] ??= issue.message;
  }
  return errors;
}

export function errorsFromServer(described: {
  message: string;
  field: string | null;
  fieldErrors: Record<string, string[] | undefined>;
}): FieldErrors {
  const errors: FieldErrors = {};
  for (const [key, messages] of Object.entries(described.fieldErrors)) if (messages?.[0]) errors[key] = messages[0];
  if (described.field) errors[described.field] ??= described.message;
  return errors;
}

/** The id of the control that edits an input path, so an error can move focus there. */
export function fieldId(path: string): string {
  return `study-${path.replace(/\./g, "-")}`;
}

/** Order in which errors are visited (the form's order), so focus goes to the first one on screen. */
export function firstErrorPath(errors: FieldErrors): string | null {
  const order = [
    "projectId",
    "title",
    "taskPrompt",
    "testCommand",
    "junitPath",
    "testFiles",
    "configurations",
    "concurrency",
    "agentTimeoutSec",
    "evalTimeoutSec",
    "budget.tokens",
    "budget.money",
    "tokenBudget",
  ];
  const keys = Object.keys(errors);
  for (const prefix of order) {
    const found = keys
      .filter((key) => key === prefix || key.startsWith(`${prefix}.`))
      .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    if (found[0] !== undefined) return found[0];
  }
  return keys[0] ?? null;
}

/** Bytes → base64 without blowing the call stack on large files. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let offset = 0; offset < bytes.length; offset += chunk)
    binary += String.fromCharCode(...bytes.subarray(offset, offset + chunk));
  return btoa(binary);
}
