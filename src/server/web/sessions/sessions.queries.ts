import type { Db } from "../../core/db/client";
import type { Prisma } from "../../../generated/prisma/client";
import {
  sessionKindSchema,
  sessionModeSchema,
  sessionStateSchema,
  type SessionKind,
  type SessionMode,
  type SessionState,
  type SessionView,
} from "../../../shared/session-schemas";
import { tokensOf, type TokenUsage } from "../../../shared/token-usage";
import { networkModeSchema, type NetworkMode } from "../../../shared/project-schemas";
import { harnessKindSchema } from "../../../shared/vocabulary";

type SessionRow = Prisma.SessionGetPayload<{ include: { project: { select: { name: true } } } }>;
const include = { project: { select: { name: true } } } as const;

/** What the session service needs of a row besides its view: the image, token and container. */
export interface SessionRecord extends Omit<SessionView, "detached" | "fetchingImage"> {
  image: string;
  /** The hash of its gateway token (session-token.ts), never the token. */
  runTokenHash: string | null;
  containerId: string | null;
  reasoningEffort: string | null;
  leaseExpiresAt: string | null;
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    projectId: row.projectId,
    projectName: row.project.name,
    kind: sessionKindSchema.catch("shell").parse(row.kind),
    mode: sessionModeSchema.catch("private").parse(row.mode),
    model: row.model,
    reasoningEffort: row.reasoningEffort,
    state: sessionStateSchema.catch("interrupted").parse(row.state),
    reason: row.reason,
    notice: row.notice,
    startedBy: row.startedBy,
    threadId: row.threadId,
    fromTrialId: row.fromTrialId,
    workspaceId: row.workspaceId,
    environmentVersionId: row.environmentVersionId,
    savedVersionId: row.savedVersionId,
    network: networkModeSchema.catch("none").parse(row.network),
    columns: row.columns,
    rows: row.rows,
    tokens: tokensOf(row),
    createdAt: row.createdAt.toISOString(),
    lastActivityAt: row.lastActivityAt.toISOString(),
    endedAt: row.endedAt?.toISOString() ?? null,
    image: row.image,
    runTokenHash: row.runTokenHash,
    containerId: row.containerId,
    leaseExpiresAt: row.leaseExpiresAt?.toISOString() ?? null,
  };
}

export interface NewSession {
  projectId: string;
  kind: SessionKind;
  mode: SessionMode;
  model: string | null;
  reasoningEffort: string | null;
  startedBy: string;
  image: string;
  environmentVersionId: string | null;
  workspaceId: string | null;
  fromTrialId: string | null;
  threadId: string | null;
  network: NetworkMode;
  columns: number;
  rows: number;
  leaseExpiresAt: Date | null;
}

export interface SessionChange {
  state?: SessionState;
  reason?: string | null;
  containerId?: string | null;
  workspaceId?: string | null;
  threadId?: string | null;
  columns?: number;
  rows?: number;
  leaseExpiresAt?: Date | null;
  lastActivityAt?: Date;
  savedVersionId?: string;
  runTokenHash?: string;
  notice?: string | null;
  network?: NetworkMode;
  endedAt?: Date | null;
  tokens?: TokenUsage;
}

function toColumns(change: SessionChange) {
  const { tokens, ...rest } = change;
  return {
    ...rest,
    ...(tokens
      ? {
          inputTokens: tokens.inputTokens,
          cachedInputTokens: tokens.cachedInputTokens,
          outputTokens: tokens.outputTokens,
          reasoningTokens: tokens.reasoningTokens,
        }
      : {}),
  };
}

export function createSessionQueries(db: Db) {
  return {
    async create(input: NewSession): Promise<SessionRecord> {
      return toRecord(await db.session.create({ data: { ...input, state: "starting" }, include }));
    },
    async find(id: string): Promise<SessionRecord | null> {
      const row = await db.session.findUnique({ where: { id }, include });
      return row ? toRecord(row) : null;
    },
    async list(options: { projectId?: string; limit?: number }): Promise<SessionRecord[]> {
      const rows = await db.session.findMany({
        where: options.projectId ? { projectId: options.projectId } : {},
        orderBy: { createdAt: "desc" },
        take: options.limit ?? 200,
        include,
      });
      return rows.map(toRecord);
    },
    /** Sessions whose container may exist (every state but finished). */
    async unfinished(): Promise<SessionRecord[]> {
      const rows = await db.session.findMany({ where: { state: { not: "finished" } }, include });
      return rows.map(toRecord);
    },
    /** A project's direct sessions that hold (or may hold) its lease. */
    async liveDirect(projectId: string): Promise<SessionRecord[]> {
      const rows = await db.session.findMany({
        where: { projectId, mode: "direct", state: { in: ["starting", "running"] } },
        include,
      });
      return rows.map(toRecord);
    },
    async update(id: string, change: SessionChange): Promise<SessionRecord> {
      return toRecord(await db.session.update({ where: { id }, data: toColumns(change), include }));
    },
  };
}

export type SessionQueries = ReturnType<typeof createSessionQueries>;

/** What "continue a result" needs of a trial: its workspace, committed image, thread and configuration. */
export function createTrialOriginQuery(db: Db) {
  return async (trialId: string) => {
    const row = await db.trial.findUnique({
      where: { id: trialId },
      select: {
        id: true,
        attempt: true,
        workspaceId: true,
        threadId: true,
        committedImageId: true,
        imageHost: true,
        imageWorker: true,
        study: { select: { projectId: true } },
        configuration: { select: { model: true, reasoningEffort: true, harness: true } },
      },
    });
    if (!row) return null;
    return {
      trialId: row.id,
      attempt: row.attempt,
      projectId: row.study.projectId,
      workspaceId: row.workspaceId,
      committedImage: row.committedImageId,
      imageHost: row.imageHost,
      imageWorker: row.imageWorker,
      threadId: row.threadId,
      model: row.configuration.harness === "command" ? null : row.configuration.model,
      harness: harnessKindSchema.catch("codex").parse(row.configuration.harness),
      reasoningEffort: row.configuration.reasoningEffort,
    };
  };
}
