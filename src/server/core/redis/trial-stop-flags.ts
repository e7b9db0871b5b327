import type { Redis } from "ioredis";

/** Stop requests for running trials: the dashboard raises one, the worker running the trial polls it. */
export interface TrialStopFlags {
  raise(trialId: string, reason: string): Promise<void>;
  clear(trialId: string): Promise<void>;
  /** The reason of a raised flag, or null. */
  read(trialId: string): Promise<string | null>;
}

const STOP_FLAG_TTL_SECONDS = 7 * 24 * 3600;
const stopKey = (trialId: string) => `invariant:trial-stop:${trialId}`;

/** Stop flags as Redis keys (a week's expiry, so a flag nobody reads does not stay forever). */
export function redisTrialStopFlags(redis: Redis): TrialStopFlags {
  return {
    raise: async (trialId, reason) => {
      await redis.set(stopKey(trialId), reason, "EX", STOP_FLAG_TTL_SECONDS);
    },
    clear: async (trialId) => {
      await redis.del(stopKey(trialId));
    },
    read: (trialId) => redis.get(stopKey(trialId)),
  };
}
