import { cutLongStrings, MAX_EVENT_STRING_CHARS } from "../events/event-limits";
import type { EventPublisher } from "../events/event-stream";
import type { CodexEvent } from "./codex-events";

/** At most this many events wait between flushes; more are counted and left out. */
export const MAX_PENDING_AGENT_EVENTS = 2000;
/** One `agent.events` message carries at most this much JSON; a bigger batch leaves in several. */
export const MAX_AGENT_EVENTS_MESSAGE_BYTES = 256 * 1024;

/** Splits events into runs whose JSON stays under the message size (an event alone always fits: its strings are cut). */
function splitBySize(events: CodexEvent[]): CodexEvent[][] {
  const messages: CodexEvent[][] = [];
  let current: CodexEvent[] = [];
  let size = 0;
  for (const event of events) {
    const eventSize = Buffer.byteLength(JSON.stringify(event));
    if (current.length > 0 && size + eventSize > MAX_AGENT_EVENTS_MESSAGE_BYTES) {
      messages.push(current);
      current = [];
      size = 0;
    }
    current.push(event);
    size += eventSize;
  }
  if (current.length > 0) messages.push(current);
  return messages;
}

/**
 * Parsed Codex events wait here and leave as `agent.events` messages per flush. Bounded: each event's
 * long strings are cut, at most MAX_PENDING_AGENT_EVENTS wait (the rest are counted and reported as a
 * warning event), and a message never exceeds MAX_AGENT_EVENTS_MESSAGE_BYTES.
 */
export function createEventBatch(options: {
  publish: EventPublisher;
  ids: { projectId: string; studyId?: string; trialId?: string; sessionId?: string };
  runId: string;
}) {
  let batch: CodexEvent[] = [];
  let dropped = 0;
  return {
    add(events: CodexEvent[]): void {
      for (const event of events) {
        if (batch.length >= MAX_PENDING_AGENT_EVENTS) dropped += 1;
        else batch.push(cutLongStrings(event, MAX_EVENT_STRING_CHARS));
      }
    },
    async flush(): Promise<void> {
      if (batch.length === 0 && dropped === 0) return;
      const events = batch;
      if (dropped > 0)
        events.push({
          v: 1,
          type: "error",
          message: `${dropped} agent events were left out of the live record (more than ${MAX_PENDING_AGENT_EVENTS} at once).`,
          fatal: false,
        });
      batch = [];
      dropped = 0;
      for (const message of splitBySize(events))
        await options.publish({
          type: "agent.events",
          ...options.ids,
          data: { runId: options.runId, events: message },
        });
    },
  };
}
