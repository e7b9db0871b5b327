import { z } from "zod";
import { HARNESS_INFO } from "./harness-kinds";
import { capturedFileKindSchema, capturedFileRoleSchema } from "./captured-files";
import { runtimeReportSchema } from "./dependency-schemas";
import { harnessKindSchema, reasoningEffortSchema } from "./vocabulary";
import { count } from "./zod-fields";

/**
 * A trial's manifest: everything its attempt ran on, enough to run it again exactly. The web process
 * writes the inputs when it queues the attempt (`inputs`, frozen with the job); what only the run can
 * tell (the Codex version, the model the provider reported) is added from the trial's record.
 */
export const MANIFEST_VERSION = 1;

/** A captured file as the study recorded it (the same shape as the study's testFiles). */
const manifestFileSchema = z.object({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: count,
  role: capturedFileRoleSchema.default("test"),
  kind: capturedFileKindSchema.optional(),
});

export const containerLimitsSchema = z.object({
  cpus: z.number().positive(),
  memoryBytes: count,
  swapBytes: count,
  pids: z.int().positive(),
  network: z.enum(["none", "internet"]),
  allowHostedTools: z.boolean(),
});
export type ContainerLimits = z.infer<typeof containerLimitsSchema>;

export const manifestConfigurationSchema = z.object({
  harness: harnessKindSchema,
  model: z.string(),
  reasoningEffort: reasoningEffortSchema,
  instructions: z.string(),
  overrides: z.array(z.string()),
  command: z.string().nullable(),
});
export type ManifestConfiguration = z.infer<typeof manifestConfigurationSchema>;

/** What the web process froze into the attempt's job. */
export const manifestInputsSchema = z.object({
  version: z.literal(MANIFEST_VERSION),
  study: z.object({ id: z.string().min(1), projectId: z.string().min(1) }),
  environment: z.object({
    versionId: z.string().nullable(),
    version: z.int().positive().nullable(),
    imageId: z.string().nullable(),
    imageDigest: z.string().nullable(),
    /** The runtimes its dependency step found or installed ("Node.js 22.23.3 from .nvmrc"); none before that step. */
    runtimes: z.array(runtimeReportSchema).default([]),
  }),
  /** The snapshot's id is its content address: the sha256 of its file manifest. */
  snapshot: z.object({ id: z.string().nullable(), files: count.nullable(), bytes: count.nullable() }),
  configuration: manifestConfigurationSchema,
  taskPrompt: z.string(),
  testCommand: z.string(),
  junitPath: z.string().nullable(),
  /** The captured files with their sha256, restored before the evaluation. */
  testFiles: z.array(manifestFileSchema),
  limits: containerLimitsSchema,
  concurrency: z.int().positive(),
  agentTimeoutSec: z.int().positive(),
  evalTimeoutSec: z.int().positive(),
  /** Tokens the model gateway allowed this attempt. */
  tokenBudget: z.int().positive(),
  attempt: z.int().positive(),
  /**
   * A follow-up attempt (review feedback sent back to the agent): the trial whose workspace and conversation
   * it continued, the image its agent ran in (that trial's result image), and its prompt (the feedback);
   * `taskPrompt` stays the study's, the conversation's first prompt. Absent or null: a first attempt.
   */
  followUp: z
    .object({ parentTrialId: z.string().min(1), agentImage: z.string().min(1), prompt: z.string() })
    .nullable()
    .optional(),
});
export type ManifestInputs = z.infer<typeof manifestInputsSchema>;

export const trialManifestSchema = manifestInputsSchema.extend({
  /** The harness's version as the run reported it (Codex's `--version`); null before it ran. */
  harnessVersion: z.string().nullable(),
  /** The model name the provider put in its responses; null when the worker did not record one. */
  reportedModel: z.string().nullable(),
  /**
   * The workspace the attempt ran on: `overlay` (copy-on-write over the snapshot's tree) or `copy` (a full
   * private copy); null before it was made (or from before workspaces had kinds).
   */
  workspaceKind: z.enum(["copy", "overlay"]).nullable().default(null),
});
export type TrialManifest = z.infer<typeof trialManifestSchema>;

/** One field that differs between two manifests: a dotted path and both values as text. */
export interface ManifestDifference {
  path: string;
  a: string;
  b: string;
}

/** The fields that differ between trials of one study by design, left out of "what differed" unless asked. */
const IDENTITY_PATHS = new Set(["attempt", "study.id"]);

function flatten(value: unknown, prefix: string, into: Map<string, string>): void {
  if (Array.isArray(value) && value.every((item) => typeof item === "object" && item !== null && "path" in item)) {
    // captured files: keyed by path, so a changed hash reads as that file
    for (const item of value as { path: string }[]) flatten(item, `${prefix}[${item.path}]`, into);
    if (value.length === 0) into.set(prefix, "[]");
    return;
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) flatten(child, prefix ? `${prefix}.${key}` : key, into);
    return;
  }
  const text =
    value === null || value === undefined
      ? "—"
      : typeof value === "string" || typeof value === "number" || typeof value === "boolean"
        ? String(value)
        : JSON.stringify(value);
  into.set(prefix, text);
}

/** A manifest as dotted paths and their values as text (captured files keyed by their path; the harness by its name). */
export function flattenManifest(manifest: TrialManifest): Map<string, string> {
  const into = new Map<string, string>();
  flatten(manifest, "", into);
  into.set("configuration.harness", HARNESS_INFO[manifest.configuration.harness].label);
  return into;
}

/**
 * "What differed" between several manifests: each field whose value is not the same in all of them, with
 * each manifest's value in order ("—" where one lacks it). The attempt and the study id are left out.
 */
export function manifestDifferences(
  manifests: readonly TrialManifest[],
  options: { includeIdentity?: boolean } = {},
): { path: string; values: string[] }[] {
  const flat = manifests.map(flattenManifest);
  const paths = [...new Set(flat.flatMap((map) => [...map.keys()]))];
  return paths
    .filter((path) => options.includeIdentity || !IDENTITY_PATHS.has(path))
    .flatMap((path) => {
      const values = flat.map((map) => map.get(path) ?? "—");
      return values.every((value) => value === values[0]) ? [] : [{ path, values }];
    });
}

/** "What differed" between two manifests (a missing field reads "—"). */
export function diffManifests(
  a: TrialManifest,
  b: TrialManifest,
  options: { includeIdentity?: boolean } = {},
): ManifestDifference[] {
  return manifestDifferences([a, b], options).map(({ path, values }) => ({
    path,
    a: values[0] ?? "—",
    b: values[1] ?? "—",
  }));
}

/** A manifest stored as JSON, or null when absent or unreadable (a trial queued before manifests existed). */
export function parseManifestInputs(json: string | null): ManifestInputs | null {
  if (json === null) return null;
  try {
    const parsed = manifestInputsSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
