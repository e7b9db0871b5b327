import { z } from "zod";

/**
 * A project's dependency step: the command that installs what its tests need, the folders it
 * leaves in the project (mounted into every trial at the same place, never snapshotted) and the
 * manifest files it reads (copied in from a fresh snapshot; their hashes tell when it is stale).
 */
export const dependencyKindSchema = z.enum(["npm", "pnpm", "yarn", "python", "go", "cargo", "command"]);
export type DependencyKind = z.infer<typeof dependencyKindSchema>;

/** A path relative to the project root: no leading "/", no "." or ".." parts, no backslashes. */
const relativePath = z
  .string()
  .trim()
  .min(1, "Name a path inside the project.")
  .max(300, "Paths are at most 300 characters.")
  .refine(
    (value) =>
      !value.startsWith("/") &&
      !value.includes("\\") &&
      value.split("/").every((part) => part && part !== "." && part !== ".."),
    { message: 'Use a path relative to the project root, such as "package-lock.json" (no "..", no leading "/").' },
  );

export const dependencyStepSchema = z.object({
  kind: dependencyKindSchema,
  command: z
    .string()
    .trim()
    .min(1, "Enter the command that installs the dependencies, for example npm ci.")
    .max(10_000, "The command is at most 10,000 characters."),
  /** Folders the command leaves in the project root, e.g. node_modules or .venv. */
  outputs: z.array(relativePath).max(10, "At most 10 output folders."),
  /** Files the command reads, e.g. package.json and package-lock.json. */
  manifests: z
    .array(relativePath)
    .min(1, "Name at least one manifest file, such as package-lock.json.")
    .max(50, "At most 50 manifest files."),
});
export type DependencyStep = z.infer<typeof dependencyStepSchema>;

/** A runtime a project declares (.nvmrc, engines.node, .python-version, go.mod …; see runtime-declarations.ts). */
export const runtimeRequestSchema = z.object({
  runtime: z.enum(["node", "python", "go"]),
  /** A semver range for Node.js ("22", "22 >=22.12"); a version or specifier for Python and Go. */
  range: z.string().min(1).max(100),
  /** Where it was read, as the user would say it: ".nvmrc", "package.json engines.node". */
  source: z.string().min(1).max(200),
});
export type RuntimeRequest = z.infer<typeof runtimeRequestSchema>;

/** A runtime as the dependency step found or installed it (its report file, runtime-script.ts). */
export const runtimeReportSchema = z.object({
  runtime: z.enum(["node", "python", "go"]),
  version: z.string().max(40),
  requested: z.string().max(100).nullable(),
  source: z.string().max(200).nullable(),
  /** satisfied: the image's matched; installed: fetched to match; unavailable: not offered here; present: undeclared. */
  outcome: z.enum(["satisfied", "installed", "unavailable", "present"]),
});
export type RuntimeReport = z.infer<typeof runtimeReportSchema>;

export const manifestHashSchema = z.object({ path: z.string(), sha256: z.string().nullable() });
export type ManifestHash = z.infer<typeof manifestHashSchema>;

/** What an environment version records about the dependencies it carries. */
export const installedDependenciesSchema = z.object({
  /** Data-dir-relative folder that held /workspace during the step; its outputs are mounted into trials. */
  dir: z.string(),
  kind: dependencyKindSchema,
  command: z.string(),
  outputs: z.array(z.string()),
  /** sha256 of each manifest as the step saw it (null: the file was absent). */
  manifests: z.array(manifestHashSchema),
  /** The runtimes the manifests declared when the step ran (older versions: absent). */
  runtimes: z.array(runtimeRequestSchema).optional(),
  /** What the step found or installed (recorded when it finished; older versions: absent). */
  runtimeReport: z.array(runtimeReportSchema).optional(),
});
export type InstalledDependencies = z.infer<typeof installedDependenciesSchema>;

export interface ManifestChange {
  path: string;
  change: "changed" | "added" | "removed";
}

/** The project page's and the study form's view of a project's dependencies. */
export interface DependencyStatusView {
  /** The step that runs: the edited one, else the detected one (null: nothing detected, nothing set). */
  step: DependencyStep | null;
  /** What the manifests in the project suggest. */
  detected: DependencyStep | null;
  edited: boolean;
  /** The active environment version's installed dependencies (null: none installed). */
  installed: (InstalledDependencies & { version: number }) | null;
  /** Manifests that differ from what the installed dependencies were made from. */
  changes: ManifestChange[];
  /** One sentence when the dependencies need preparing (again), else null. */
  warning: string | null;
  /** The detected step's manifests declare no package (a bare package.json, comment-only requirements): no install needed. */
  nothingToInstall: boolean;
}

export const setDependencyStepInputSchema = z.object({
  projectId: z.string().min(1),
  /** null: go back to the detected step. */
  step: dependencyStepSchema.nullable(),
});
export type SetDependencyStepInput = z.infer<typeof setDependencyStepInputSchema>;
