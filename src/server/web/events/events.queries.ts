import type { Db } from "../../core/db/client";
import { invariantEventSchema, type InvariantEvent, type RecordedEvent } from "../../../shared/event-catalog";

export function createEventQueries(db: Db) {
  return {
    /** Records one stream entry; recording the same entry again returns the existing row (idempotent). */
    async record(streamId: string, event: InvariantEvent): Promise<{ recorded: RecordedEvent; created: boolean }> {
      const existing = await db.eventLog.findUnique({ where: { streamId } });
      if (existing) return { recorded: { id: existing.id, event }, created: false };
      const row = await db.eventLog.create({
        data: {
          streamId,
          type: event.type,
          projectId: event.projectId ?? null,
          studyId: event.studyId ?? null,
          trialId: event.trialId ?? null,
          sessionId: event.sessionId ?? null,
          payload: JSON.stringify(event),
        },
      });
      return { recorded: { id: row.id, event }, created: true };
    },

    async recent(options: { limit: number; type?: string }): Promise<RecordedEvent[]> {
      const rows = await db.eventLog.findMany({
        where: options.type ? { type: { startsWith: options.type } } : {},
        orderBy: { id: "desc" },
        take: options.limit,
      });
      return rows.flatMap((row) => {
        const parsed = invariantEventSchema.safeParse(JSON.parse(row.payload));
        return parsed.success ? [{ id: row.id, event: parsed.data }] : [];
      });
    },
  };
}

export type EventQueries = ReturnType<typeof createEventQueries>;
