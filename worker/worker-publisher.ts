import type { Redis } from "ioredis";
import { publishEvent, type EventInput } from "../src/server/core/events/event-stream";
import { discardFinishReport } from "../src/server/core/trial-records/finish-outbox";

/**
 * The worker's publisher. While Redis is away (a restart of the private Redis) a publish does not hold
 * the trial up: the event is queued on the connection and sent, in order, when Redis is back, so a
 * trial can finish during an outage. Once a stop gives up on running jobs (their containers removed),
 * their trials are handed to recovery: the end they would report (an agent that "failed" because its
 * container vanished) is not published and its finish report is dropped, so the web process's sweeper
 * reports them interrupted with the reason; `leaving()` tells their runs why, so they take no next step.
 */
export function stopAwarePublisher(redis: Redis, dataDir: string, log: (message: string) => void) {
  let abandoned: string | null = null;
  return {
    publish: (event: EventInput) => {
      if (abandoned !== null && event.type === "trial.finished") {
        discardFinishReport({ dataDir, trialId: event.trialId, attempt: event.data.attempt });
        return Promise.resolve("dropped");
      }
      const sent = publishEvent(redis, event);
      if (redis.status === "ready") return sent;
      // Redis is away: the event waits in the connection's queue, in order, and is sent once it is back;
      // the trial goes on meanwhile (a finish is on disk first, see finish-outbox.ts)
      void sent.catch((error: unknown) => log(`publish ${event.type}: ${String(error)}`));
      return Promise.resolve("queued");
    },
    /** Gives up on the running trials, with the reason (e.g. "this worker is stopping (SIGTERM)"). */
    abandon: (reason: string) => {
      abandoned = reason;
    },
    /** Why the running trials were given up on, or null while they were not. */
    leaving: () => abandoned,
  };
}
