import { z } from "zod";
import { harnessKindSchema, reasoningEffortSchema } from "./vocabulary";

/** Limits that keep settings sane on any host; the service also checks them against this host. */
export const MIB = 1024 * 1024;
export const GIB = 1024 * MIB;

export const networkModeSchema = z.enum(["none", "internet"]);
export type NetworkMode = z.infer<typeof networkModeSchema>;

/** The model gateway's default token budget (input + output tokens) for one run: a trial, a session turn. */
export const DEFAULT_RUN_TOKEN_BUDGET = 5_000_000;
export const tokenBudgetSchema = z
  .number({ error: "The token budget must be a number of tokens." })
  .int("The token budget is a whole number of tokens.")
  .min(1_000, "At least 1,000 tokens; one model request alone can use more.")
  .max(1_000_000_000, "At most 1,000,000,000 tokens.");

/** What each of a trial's containers may write before it is stopped (the agent's, the test command's). */
export const DEFAULT_DISK_BUDGET_BYTES = 10 * GIB;
/** Open files per process in every container (the nofile ulimit, soft and hard). */
export const DEFAULT_OPEN_FILES = 8_192;

// Docker image reference: [registry/]name[:tag][@digest]
const imageReference =
  /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

export const agentConfigurationSchema = z.object({
  harness: harnessKindSchema.default("codex"),
  model: z.string().trim().max(200, "Model names are at most 200 characters.").default(""),
  reasoningEffort: reasoningEffortSchema.default("medium"),
  instructions: z.string().max(20_000, "Instructions are at most 20,000 characters.").default(""),
});
export type AgentConfiguration = z.infer<typeof agentConfigurationSchema>;

export const projectSettingsSchema = z.object({
  name: z.string().trim().min(1, "Give the project a name.").max(100, "Names are at most 100 characters."),
  networkMode: networkModeSchema,
  cpus: z.number({ error: "CPUs must be a number." }).min(0.1, "At least 0.1 CPU.").max(256, "At most 256 CPUs."),
  memoryBytes: z
    // the form's field is in GiB, the API's in bytes: the messages name both
    .number({ error: "Memory must be a number of GiB, for example 4 (in bytes through the API)." })
    .int("Memory must come to a whole number of bytes.")
    .min(64 * MIB, "At least 0.0625 GiB (64 MiB) of memory; the agent and its tools need room.")
    .max(1024 * GIB, "At most 1024 GiB (1 TiB) of memory."),
  swapBytes: z
    .number({ error: "Swap must be a number of GiB, for example 0 (in bytes through the API)." })
    .int("Swap must come to a whole number of bytes.")
    .min(0, "Swap cannot be negative.")
    .max(1024 * GIB, "At most 1024 GiB (1 TiB) of swap."),
  pids: z
    .number()
    .int("The process limit is a whole number.")
    .min(16, "At least 16 processes.")
    .max(1_000_000, "At most 1,000,000 processes."),
  baseImage: z
    .string()
    .trim()
    .max(255)
    .regex(imageReference, "Not a Docker image reference; use a name like invariant-base:bookworm.")
    .nullable(),
  defaultConfiguration: agentConfigurationSchema,
  /** The model gateway's token budget for each run (a trial, unless its study sets one; a session). */
  runTokenBudget: tokenBudgetSchema,
  /** Let hosted tools and URL inputs through the gateway although the network mode is none. */
  allowHostedTools: z.boolean(),
  /** Containers run as root (with the capabilities package managers need) instead of the host user. */
  runAsRoot: z.boolean(),
  /** What each of a trial's containers may write (its layer, its workspace's growth) before it is stopped. */
  diskBudgetBytes: z
    .number({ error: "The disk budget must be a number of bytes." })
    .int("The disk budget is a whole number of bytes.")
    .min(64 * MIB, "At least 64 MiB; a test run alone writes caches and reports.")
    .max(64 * 1024 * GIB, "At most 64 TiB."),
  /** Open files per process in every container (the nofile ulimit). */
  openFiles: z
    .number({ error: "The open-files limit must be a number." })
    .int("The open-files limit is a whole number.")
    .min(256, "At least 256 open files; runtimes and test runners need more than a handful.")
    .max(1_048_576, "At most 1,048,576 open files."),
});
export type ProjectSettings = z.infer<typeof projectSettingsSchema>;

/** Linux's PATH_MAX: no longer path can be opened, so none is looked up (nor echoed back). */
export const MAX_PROJECT_PATH_CHARS = 4096;

export const addProjectInputSchema = z.object({
  hostPath: z
    .string()
    .trim()
    .min(1, "Enter the project's directory, for example /home/me/code/app.")
    .max(
      MAX_PROJECT_PATH_CHARS,
      `A project's path is at most ${MAX_PROJECT_PATH_CHARS} characters (Linux's PATH_MAX).`,
    ),
  name: z.string().trim().max(100, "Names are at most 100 characters.").optional(),
});
export type AddProjectInput = z.infer<typeof addProjectInputSchema>;

export const updateProjectInputSchema = z.object({
  id: z.string().min(1),
  settings: projectSettingsSchema.partial(),
});
export type UpdateProjectInput = z.infer<typeof updateProjectInputSchema>;

export const projectIdInputSchema = z.object({ id: z.string().min(1) });

/** Point a project at its folder's new path (it was moved or renamed): an existing folder no other project has. */
export const relinkProjectInputSchema = z.object({
  id: z.string().min(1),
  hostPath: addProjectInputSchema.shape.hostPath,
});
export type RelinkProjectInput = z.infer<typeof relinkProjectInputSchema>;

/** Remove a project; with `stopRunning`, its running sessions are finished and its running studies stopped first. */
export const removeProjectInputSchema = z.object({
  id: z.string().min(1),
  stopRunning: z.boolean().default(false),
});
export type RemoveProjectInput = z.input<typeof removeProjectInputSchema>;

/** What is at a project's path: its folder, nothing (deleted or moved), something else, or a folder this user cannot read. */
export const PROJECT_FOLDER_STATES = ["present", "missing", "not-a-folder", "unreadable"] as const;
export type ProjectFolderState = (typeof PROJECT_FOLDER_STATES)[number];

/** One directory's folders for the add-project folder picker (inside the user's home or where invariant-web started). */
export interface FolderListingView {
  path: string;
  /** The folder above, or null at a root (the home directory, the folder invariant-web was started in). */
  parent: string | null;
  /** Where browsing can start: the home directory and the folder invariant-web was started in. */
  roots: { name: string; path: string }[];
  folders: { name: string; path: string }[];
  /** More than 500 folders: the rest are left out. */
  truncated: boolean;
}

export const browseFoldersInputSchema = z.object({
  /** A folder inside the home directory (absolute, or relative to it); null: the home directory. */
  path: z
    .string()
    .max(4096, "Paths are at most 4,096 characters.")
    .refine((value) => !value.includes("\0"), "A path may not contain a NUL byte.")
    .nullable()
    .default(null),
});

/** The limits every container of a project gets (jobs carry them to the worker). */
export function containerLimitsOf(
  project: Pick<ProjectSettings, "cpus" | "memoryBytes" | "swapBytes" | "pids" | "openFiles">,
) {
  return {
    cpus: project.cpus,
    memoryBytes: project.memoryBytes,
    swapBytes: project.swapBytes,
    pids: project.pids,
    openFiles: project.openFiles,
  };
}

/** What the API returns for a project: plain values, bytes as numbers. */
export interface ProjectView extends ProjectSettings {
  id: string;
  hostPath: string;
  /** Its folder's state when it was read, and the sentence to show when it is not present (what to do). */
  folder: { state: ProjectFolderState; problem: string | null };
  createdAt: string;
  updatedAt: string;
}

/** The one project read the core services need (the web's projects.queries provides it). */
export interface ProjectLookup {
  findById(id: string): Promise<ProjectView | null>;
}
