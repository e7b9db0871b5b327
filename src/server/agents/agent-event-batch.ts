import type { EventInput } from "../events/event-stream";
import type { CodexEvent } from "./codex-events";

/** Parsed Codex events wait here and leave in one `agent.events` message per flush. */
export function createEventBatch(options: {
  publish: (event: EventInput) => Promise<unknown>;
  ids: { projectId: string; studyId?: string; trialId?: string; sessionId?: string };
  runId: string;
}) {
  let batch: CodexEvent[] = [];
  return {
    add(events: CodexEvent[]): void {
      batch.push(...events);
    },
    async flush(): Promise<void> {
      if (batch.length === 0) return;
      const events = batch;
      batch = [];
      await options.publish({ type: "agent.events", ...options.ids, data: { runId: options.runId, events } });
    },
  };
}
