import type { Db } from "../../core/db/client";
import { installedDependenciesSchema, type InstalledDependencies } from "../../../shared/dependency-schemas";
import { devcontainerRecordSchema, type DevcontainerRecord } from "../../../shared/devcontainer-schemas";

export type EnvironmentStatus = "building" | "ready" | "failed";
/** How a version was made: the base image, a prepare command, the dependency step, saved from a terminal session, or a devcontainer.json. */
export type EnvironmentOrigin = "base" | "command" | "dependencies" | "session" | "devcontainer";
const ORIGINS: readonly string[] = ["base", "command", "dependencies", "session", "devcontainer"];

/** An environment version row's devcontainer column (null: not from a devcontainer.json, or unreadable). */
function parseDevcontainerRecord(json: string | null): DevcontainerRecord | null {
  if (!json) return null;
  try {
    const parsed = devcontainerRecordSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** An environment version row's dependencies column (null: none, or unreadable). */
export function parseDependencies(json: string | null): InstalledDependencies | null {
  if (!json) return null;
  try {
    const parsed = installedDependenciesSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface EnvironmentVersionView {
  id: string;
  projectId: string;
  version: number;
  imageTag: string;
  imageId: string | null;
  parentId: string | null;
  parentVersion: number | null;
  origin: EnvironmentOrigin;
  command: string | null;
  /** The installed dependencies this version carries (its own step's, or inherited from its parent). */
  dependencies: InstalledDependencies | null;
  /** What its devcontainer.json gave (origin devcontainer). */
  devcontainer: DevcontainerRecord | null;
  status: EnvironmentStatus;
  active: boolean;
  durationMs: number | null;
  sizeBytes: number | null;
  error: string | null;
  logPath: string | null;
  createdAt: string;
  usedByStudies: number;
}

type Row = Awaited<ReturnType<Db["environmentVersion"]["findUniqueOrThrow"]>> & {
  parent: { version: number } | null;
  _count: { studies: number };
};

const include = { parent: { select: { version: true } }, _count: { select: { studies: true } } } as const;

function toView(row: Row): EnvironmentVersionView {
  return {
    id: row.id,
    projectId: row.projectId,
    version: row.version,
    imageTag: row.imageTag,
    imageId: row.imageId,
    parentId: row.parentId,
    parentVersion: row.parent?.version ?? null,
    origin: ORIGINS.includes(row.origin) ? (row.origin as EnvironmentOrigin) : "base",
    command: row.command,
    dependencies: parseDependencies(row.dependencies),
    devcontainer: parseDevcontainerRecord(row.devcontainer),
    status: row.status === "ready" || row.status === "failed" ? row.status : "building",
    active: row.active,
    durationMs: row.durationMs,
    sizeBytes: row.sizeBytes === null ? null : Number(row.sizeBytes),
    error: row.error,
    logPath: row.logPath,
    createdAt: row.createdAt.toISOString(),
    usedByStudies: row._count.studies,
  };
}

interface NewBuildingVersion {
  projectId: string;
  parentId: string | null;
  origin: EnvironmentOrigin;
  command: string | null;
  imageRepository: string;
  /** The version's own installed dependencies; undefined = the parent's (a version built on it keeps them). */
  dependencies?: InstalledDependencies;
  devcontainer?: DevcontainerRecord;
}

interface BuildResult {
  status: "ready" | "failed";
  imageId?: string;
  sizeBytes?: number;
  durationMs: number;
  error?: string;
}

async function createBuildingVersion(options: { db: Db; input: NewBuildingVersion }): Promise<EnvironmentVersionView> {
  const { input } = options;
  return options.db.$transaction(async (tx) => {
    const last = await tx.environmentVersion.findFirst({
      where: { projectId: input.projectId },
      orderBy: { version: "desc" },
      select: { version: true },
    });
    const version = (last?.version ?? 0) + 1;
    const parent = input.parentId
      ? await tx.environmentVersion.findUnique({ where: { id: input.parentId }, select: { dependencies: true } })
      : null;
    const dependencies = input.dependencies ? JSON.stringify(input.dependencies) : (parent?.dependencies ?? null);
    const row = await tx.environmentVersion.create({
      data: {
        projectId: input.projectId,
        version,
        parentId: input.parentId,
        origin: input.origin,
        command: input.command,
        dependencies,
        devcontainer: input.devcontainer ? JSON.stringify(input.devcontainer) : null,
        status: "building",
        imageTag: `${input.imageRepository}:v${version}`,
      },
      include,
    });
    return toView(row);
  });
}

async function finishVersion(options: {
  db: Db;
  id: string;
  result: BuildResult;
  /** What its dependency step reported (the runtimes it found), recorded with the outcome. */
  dependencies?: InstalledDependencies;
}): Promise<EnvironmentVersionView | null> {
  const { id, result } = options;
  return options.db.$transaction(async (tx) => {
    const row = await tx.environmentVersion.findUnique({ where: { id } });
    if (!row || row.status !== "building") return null; // already finished (a replayed event) or deleted
    if (result.status === "ready")
      await tx.environmentVersion.updateMany({
        where: { projectId: row.projectId, active: true },
        data: { active: false },
      });
    const updated = await tx.environmentVersion.update({
      where: { id },
      data: {
        status: result.status,
        active: result.status === "ready",
        durationMs: result.durationMs,
        imageId: result.imageId ?? null,
        sizeBytes: result.sizeBytes === undefined ? null : BigInt(result.sizeBytes),
        error: result.error ?? null,
        ...(options.dependencies ? { dependencies: JSON.stringify(options.dependencies) } : {}),
      },
      include,
    });
    return toView(updated);
  });
}

export function createEnvironmentQueries(db: Db) {
  return {
    async list(projectId: string): Promise<EnvironmentVersionView[]> {
      return (
        await db.environmentVersion.findMany({ where: { projectId }, orderBy: { version: "desc" }, include })
      ).map(toView);
    },
    async findById(id: string): Promise<EnvironmentVersionView | null> {
      const row = await db.environmentVersion.findUnique({ where: { id }, include });
      return row ? toView(row) : null;
    },
    async active(projectId: string): Promise<EnvironmentVersionView | null> {
      const row = await db.environmentVersion.findFirst({ where: { projectId, active: true }, include });
      return row ? toView(row) : null;
    },
    async building(projectId: string): Promise<EnvironmentVersionView | null> {
      const row = await db.environmentVersion.findFirst({ where: { projectId, status: "building" }, include });
      return row ? toView(row) : null;
    },
    async allBuilding(): Promise<EnvironmentVersionView[]> {
      return (await db.environmentVersion.findMany({ where: { status: "building" }, include })).map(toView);
    },
    /** Creates the next version number atomically. */
    createBuilding: (input: NewBuildingVersion) => createBuildingVersion({ db, input }),
    /** Marks a build finished; a ready version becomes the only active one. */
    finish: (id: string, result: BuildResult, dependencies?: InstalledDependencies) =>
      finishVersion({ db, id, result, dependencies }),
    async activate(id: string): Promise<EnvironmentVersionView> {
      return db.$transaction(async (tx) => {
        const row = await tx.environmentVersion.findUniqueOrThrow({ where: { id } });
        await tx.environmentVersion.updateMany({
          where: { projectId: row.projectId, active: true },
          data: { active: false },
        });
        return toView(await tx.environmentVersion.update({ where: { id }, data: { active: true }, include }));
      });
    },
    async setLogPath(id: string, logPath: string): Promise<void> {
      await db.environmentVersion.updateMany({ where: { id, logPath: null }, data: { logPath } });
    },
    async remove(id: string): Promise<void> {
      await db.environmentVersion.delete({ where: { id } });
    },
  };
}

export type EnvironmentQueries = ReturnType<typeof createEnvironmentQueries>;
