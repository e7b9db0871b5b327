import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import { clipPath } from "../../core/storage/project-folder";
import {
  agentConfigurationSchema,
  DEFAULT_DISK_BUDGET_BYTES,
  DEFAULT_OPEN_FILES,
  DEFAULT_RUN_TOKEN_BUDGET,
  GIB,
  MAX_PROJECT_PATH_CHARS,
  projectSettingsSchema,
  type AddProjectInput,
  type ProjectSettings,
  type ProjectView,
  type RelinkProjectInput,
  type UpdateProjectInput,
} from "../../../shared/project-schemas";
import type { ProjectQueries } from "./projects.queries";

export interface HostLimits {
  cpus: number;
  memoryBytes: number;
}

export interface ProjectServiceDeps {
  projects: ProjectQueries;
  /** Real path of the data dir: projects may not live inside it, nor contain it. */
  dataDir: string;
  host: HostLimits;
  checkReadable?: (path: string) => Promise<void>;
}

export function defaultSettings(options: { name: string; host: HostLimits }): ProjectSettings {
  return {
    name: options.name,
    networkMode: "none",
    cpus: Math.min(2, options.host.cpus),
    memoryBytes: Math.min(4 * GIB, Math.floor(options.host.memoryBytes / 2)),
    swapBytes: 0,
    pids: 512,
    baseImage: null,
    defaultConfiguration: agentConfigurationSchema.parse({}),
    runTokenBudget: DEFAULT_RUN_TOKEN_BUDGET,
    allowHostedTools: false,
    // agents install their tools (apt-get, pip, npm -g) as root inside the container; see docs/security.md
    runAsRoot: true,
    diskBudgetBytes: DEFAULT_DISK_BUDGET_BYTES,
    openFiles: DEFAULT_OPEN_FILES,
  };
}

/** Pseudo file systems of the kernel: never a project (a snapshot of /proc reads processes that come and go). */
const SYSTEM_FOLDERS = ["/proc", "/sys", "/dev"];

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** Checks a host directory can become a project; returns its real path. Throws AppError otherwise. */
export async function validateProjectDirectory(options: {
  hostPath: string;
  dataDir: string;
  /** Readability probe; fs.access by default (root passes it for any directory). */
  checkReadable?: (path: string) => Promise<void>;
}): Promise<string> {
  const field = "hostPath";
  // every message names the path clipped: a megabyte of path is never echoed back
  const shown = clipPath(options.hostPath);
  if (options.hostPath.length > MAX_PROJECT_PATH_CHARS)
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `That path is ${options.hostPath.length} characters long; a project's path is at most ${MAX_PROJECT_PATH_CHARS}.`,
    });
  if (!path.isAbsolute(options.hostPath)) {
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `"${shown}" is not an absolute path. Enter the full path, for example /home/me/code/app.`,
    });
  }
  let realPath: string;
  try {
    realPath = await fs.realpath(options.hostPath);
  } catch {
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `${shown} does not exist. Check the spelling, or create the directory first.`,
    });
  }
  const system = SYSTEM_FOLDERS.find((folder) => isInside(realPath, folder));
  if (system)
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `${shown} is ${realPath === system ? "" : "inside "}${system}, the kernel's view of the system (its files change as they are read, and some never end): it cannot be a project. Choose a folder of your own.`,
    });
  const stat = await fs.stat(realPath);
  if (!stat.isDirectory()) {
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `${shown} is a file, not a directory. Choose the project's top-level folder.`,
    });
  }
  try {
    await (options.checkReadable ?? ((dir: string) => fs.access(dir, constants.R_OK | constants.X_OK)))(realPath);
  } catch {
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `${shown} is not readable by this user. Fix its permissions (for example chmod u+rx) and try again.`,
    });
  }
  if (isInside(realPath, options.dataDir)) {
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `${shown} is inside invariant-web's data directory (${options.dataDir}). Choose a directory of your own.`,
    });
  }
  if (isInside(options.dataDir, realPath)) {
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `${shown} contains invariant-web's data directory (${options.dataDir}), so snapshots would copy it. Choose the project's own folder, or move the data dir with --data-dir.`,
    });
  }
  return realPath;
}

function checkAgainstHost(settings: Partial<ProjectSettings>, host: HostLimits): void {
  if (settings.cpus !== undefined && settings.cpus > host.cpus) {
    throw new AppError({
      code: "BAD_REQUEST",
      field: "cpus",
      message: `This host has ${host.cpus} CPUs; a project can use at most that many.`,
    });
  }
  if (settings.memoryBytes !== undefined && settings.memoryBytes > host.memoryBytes) {
    throw new AppError({
      code: "BAD_REQUEST",
      field: "memoryBytes",
      message: `This host has ${(host.memoryBytes / GIB).toFixed(1)} GiB of memory; a project can use at most that much.`,
    });
  }
}

export function createProjectService(deps: ProjectServiceDeps) {
  async function get(id: string): Promise<ProjectView> {
    const project = await deps.projects.findById(id);
    if (!project)
      throw new AppError({
        code: "NOT_FOUND",
        message: `No project with id ${id}. It may have been removed; reload the project list.`,
      });
    return project;
  }

  return {
    list: () => deps.projects.list(),
    get,

    async add(input: AddProjectInput): Promise<ProjectView> {
      const realPath = await validateProjectDirectory({
        hostPath: input.hostPath,
        dataDir: deps.dataDir,
        ...(deps.checkReadable ? { checkReadable: deps.checkReadable } : {}),
      });
      const existing = await deps.projects.findByHostPath(realPath);
      if (existing) {
        throw new AppError({
          code: "CONFLICT",
          field: "hostPath",
          message: `${realPath} is already added as project "${existing.name}".`,
        });
      }
      const name = input.name?.trim() || path.basename(realPath) || realPath;
      const settings = projectSettingsSchema.parse(defaultSettings({ name, host: deps.host }));
      return deps.projects.create({ hostPath: realPath, settings });
    },

    /**
     * Points a project whose folder was moved or renamed at its new path: validated as an added folder is
     * (exists, a directory, readable, outside the data dir) and not another project's. Its studies, versions
     * and history stay; the next snapshot is taken from the new path.
     */
    async relink(input: RelinkProjectInput): Promise<ProjectView> {
      const project = await get(input.id);
      const realPath = await validateProjectDirectory({
        hostPath: input.hostPath,
        dataDir: deps.dataDir,
        ...(deps.checkReadable ? { checkReadable: deps.checkReadable } : {}),
      });
      const existing = await deps.projects.findByHostPath(realPath);
      if (existing && existing.id !== project.id)
        throw new AppError({
          code: "CONFLICT",
          field: "hostPath",
          message: `${realPath} is already the folder of project "${existing.name}". Choose this project's own folder, or remove one of the two.`,
        });
      return deps.projects.relink(project.id, realPath);
    },

    async update(input: UpdateProjectInput): Promise<ProjectView> {
      await get(input.id);
      checkAgainstHost(input.settings, deps.host);
      return deps.projects.update(input.id, input.settings);
    },
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
