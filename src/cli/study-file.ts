import fs from "node:fs";
import yaml from "js-yaml";
import { z } from "zod";
import { configurationInputSchema, createStudyInputSchema, type CreateStudyInput } from "../shared/study-inputs";
import { UsageError } from "./usage-error";
import { CliInputError } from "./workflow-cli";
import { messageOf } from "../shared/error-message";

/**
 * A study definition file for `invariant-web study create --file FILE`: the study form's input
 * (createStudyInputSchema, the same schema the dashboard's form and API use) in JSON, or YAML for a
 * file named *.yaml / *.yml. The project may be named instead of given by id: `"project": "my-app"`
 * (an id, name or directory), or left out when --project or --last names it.
 */
export const MAX_STUDY_FILE_BYTES = 24 * 1024 * 1024;

export interface StudyFile {
  /** The study input, except that projectId may still be a project's name or directory. */
  input: CreateStudyInput;
  /** How the file named its project (projectId or project), or null when it did not. */
  projectRef: string | null;
}

function parseText(file: string, text: string): unknown {
  if (/\.ya?ml$/i.test(file)) {
    try {
      return yaml.load(text, { schema: yaml.JSON_SCHEMA });
    } catch (error) {
      throw new CliInputError(`${file} is not valid YAML.`, {
        "": [messageOf(error).split("\n")[0] ?? ""],
      });
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliInputError(`${file} is not valid JSON (name it .yaml or .yml for YAML).`, {
      "": [messageOf(error)],
    });
  }
}

const STUDY_FIELDS = [...Object.keys(createStudyInputSchema.shape), "project"];
const CONFIGURATION_FIELDS = Object.keys(configurationInputSchema.shape);
const TEST_FILE_FIELDS = ["source", "path", "role", "contentBase64"];

/** Fields the form does not have (a typo such as "concurency" would otherwise be dropped silently). */
function unknownFields(raw: Record<string, unknown>): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  const check = (value: unknown, known: string[], at: string) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    for (const key of Object.keys(value))
      if (!known.includes(key)) found[`${at}${key}`] = [`Unknown field. The fields here are: ${known.join(", ")}.`];
  };
  check(raw, STUDY_FIELDS, "");
  const list = (value: unknown) => (Array.isArray(value) ? (value as unknown[]) : []);
  list(raw.configurations).forEach((item, index) => check(item, CONFIGURATION_FIELDS, `configurations.${index}.`));
  list(raw.testFiles).forEach((item, index) => check(item, TEST_FILE_FIELDS, `testFiles.${index}.`));
  return found;
}

/** Every issue by its dotted field path ("configurations.0.repeats"). */
export function fieldErrorsOf(error: z.ZodError): Record<string, string[]> {
  const byField: Record<string, string[]> = {};
  for (const issue of error.issues) (byField[issue.path.map(String).join(".")] ??= []).push(issue.message);
  return byField;
}

/**
 * Reads and checks a study file. `projectId` is the project the command line named (--project/--last),
 * which wins over the file's; a missing one is checked here like any other field.
 */
export function readStudyFile(options: { file: string; projectId?: string | null }): StudyFile {
  const { file } = options;
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_STUDY_FILE_BYTES)
      throw new UsageError(`${file} is ${size} bytes; a study file is at most ${MAX_STUDY_FILE_BYTES} bytes.`);
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${file}: ${messageOf(error)}`);
  }
  const raw = parseText(file, text);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new CliInputError(`${file} must hold one object (the study), like the example in docs/automation.md.`, {
      "": ["Expected an object with title, taskPrompt, testCommand, configurations, …"],
    });
  const { project, ...rest } = raw as Record<string, unknown>;
  if (project !== undefined && typeof project !== "string")
    throw new CliInputError(`${file}: "project" names a project by id, name or directory.`, {
      project: ["Expected a string."],
    });
  const projectRef = typeof rest.projectId === "string" ? rest.projectId : (project ?? null);
  const candidate = { ...rest, projectId: options.projectId ?? projectRef ?? "" };
  const parsed = createStudyInputSchema.safeParse(candidate);
  const unknown = unknownFields(raw as Record<string, unknown>);
  if (!parsed.success || Object.keys(unknown).length > 0) {
    // the schema refuses unknown fields too (one issue per object); the CLI names each field by its path instead
    const issues = parsed.success
      ? []
      : parsed.error.issues.filter((issue) => issue.code !== "unrecognized_keys" || Object.keys(unknown).length === 0);
    const fieldErrors = { ...unknown, ...(issues.length > 0 ? fieldErrorsOf(new z.ZodError(issues)) : {}) };
    if (fieldErrors.projectId && !options.projectId)
      fieldErrors.projectId = [
        'Name the project: "project": "my-app" in the file (an id, name or directory), or --project P / --last.',
      ];
    throw new CliInputError(`${file} is not a valid study:`, fieldErrors);
  }
  if (!parsed.success) throw new Error("unreachable: an invalid study was not reported");
  return { input: parsed.data, projectRef };
}
