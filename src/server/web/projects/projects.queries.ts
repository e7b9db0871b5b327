import type { Db } from "../../core/db/client";
import { projectFolderProblem, projectFolderState } from "../../core/storage/project-folder";
import { agentConfigurationSchema, type ProjectSettings, type ProjectView } from "../../../shared/project-schemas";

type ProjectRow = Awaited<ReturnType<Db["project"]["findUniqueOrThrow"]>>;

function toView(row: ProjectRow): ProjectView {
  const parsed = agentConfigurationSchema.safeParse(JSON.parse(row.defaultConfiguration));
  // one stat per read: a folder deleted or moved since it was added shows on every page that reads the project
  const found = projectFolderState(row.hostPath);
  return {
    id: row.id,
    name: row.name,
    hostPath: row.hostPath,
    folder: { state: found.state, problem: projectFolderProblem(row.hostPath, found) },
    networkMode: row.networkMode === "internet" ? "internet" : "none",
    cpus: row.cpus,
    memoryBytes: Number(row.memoryBytes),
    swapBytes: Number(row.swapBytes),
    pids: row.pids,
    baseImage: row.baseImage,
    defaultConfiguration: parsed.success ? parsed.data : agentConfigurationSchema.parse({}),
    runTokenBudget: row.runTokenBudget,
    allowHostedTools: row.allowHostedTools,
    runAsRoot: row.runAsRoot,
    diskBudgetBytes: Number(row.diskBudgetBytes),
    openFiles: row.openFiles,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toColumns(settings: Partial<ProjectSettings>) {
  const { memoryBytes, swapBytes, diskBudgetBytes, defaultConfiguration, ...rest } = settings;
  return {
    ...rest,
    ...(diskBudgetBytes === undefined ? {} : { diskBudgetBytes: BigInt(diskBudgetBytes) }),
    ...(memoryBytes === undefined ? {} : { memoryBytes: BigInt(memoryBytes) }),
    ...(swapBytes === undefined ? {} : { swapBytes: BigInt(swapBytes) }),
    ...(defaultConfiguration === undefined ? {} : { defaultConfiguration: JSON.stringify(defaultConfiguration) }),
  };
}

export function createProjectQueries(db: Db) {
  return {
    async list(): Promise<ProjectView[]> {
      const rows = await db.project.findMany({ orderBy: { createdAt: "asc" } });
      return rows.map(toView);
    },
    async findById(id: string): Promise<ProjectView | null> {
      const row = await db.project.findUnique({ where: { id } });
      return row ? toView(row) : null;
    },
    async findByHostPath(hostPath: string): Promise<ProjectView | null> {
      const row = await db.project.findUnique({ where: { hostPath } });
      return row ? toView(row) : null;
    },
    async create(input: { hostPath: string; settings: ProjectSettings }): Promise<ProjectView> {
      const { settings } = input;
      return toView(
        await db.project.create({
          data: {
            hostPath: input.hostPath,
            name: settings.name,
            networkMode: settings.networkMode,
            cpus: settings.cpus,
            memoryBytes: BigInt(settings.memoryBytes),
            swapBytes: BigInt(settings.swapBytes),
            pids: settings.pids,
            baseImage: settings.baseImage,
            defaultConfiguration: JSON.stringify(settings.defaultConfiguration),
            runTokenBudget: settings.runTokenBudget,
            allowHostedTools: settings.allowHostedTools,
            runAsRoot: settings.runAsRoot,
            diskBudgetBytes: BigInt(settings.diskBudgetBytes),
            openFiles: settings.openFiles,
          },
        }),
      );
    },
    async update(id: string, settings: Partial<ProjectSettings>): Promise<ProjectView> {
      return toView(await db.project.update({ where: { id }, data: toColumns(settings) }));
    },
    /** Points the project at another folder (its own, moved): the checks are the service's. */
    async relink(id: string, hostPath: string): Promise<ProjectView> {
      return toView(await db.project.update({ where: { id }, data: { hostPath } }));
    },
    /** The project with everything that hangs off it, and its recorded events, in one transaction. */
    async remove(id: string): Promise<void> {
      await db.$transaction([
        db.eventLog.deleteMany({ where: { projectId: id } }),
        db.project.deleteMany({ where: { id } }),
      ]);
    },
  };
}

export type ProjectQueries = ReturnType<typeof createProjectQueries>;
