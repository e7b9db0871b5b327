import { asError, messageOf } from "../../../shared/error-message";
/**
 * How health asks a dependency (Redis, Docker) whether it answers, without crying wolf under load:
 * - a deadline that fires after the event loop was busy gives the answer one more turn to land (timers
 *   run before pending I/O in Node's loop, so an answer that arrived during a long task would otherwise
 *   lose to the timer that expired during the same task);
 * - one miss is asked again, with a longer deadline, before it counts as an outage.
 * A dependency that is really down fails both attempts at once (connection refused) or after the second
 * deadline, so an outage is still reported within a few seconds.
 */
export const FIRST_DEADLINE_MS = 1000;
export const SECOND_DEADLINE_MS = 3000;

export class NoAnswer extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms / 1000} s`);
  }
}

/** Resolves as `promise` does, or rejects with NoAnswer once `ms` passed and one more loop turn brought nothing. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      // the I/O that completed while this timer was overdue is handled in this turn's poll phase, before setImmediate
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new NoAnswer(ms));
      });
    }, ms);
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(asError(error));
      },
    );
  });
}

export type ProbeOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Asks twice before giving up: `ask` within FIRST_DEADLINE_MS, and on any failure again within SECOND_DEADLINE_MS. */
export async function probeTwice<T>(
  ask: () => Promise<T>,
  deadlines: { first: number; second: number } = { first: FIRST_DEADLINE_MS, second: SECOND_DEADLINE_MS },
): Promise<ProbeOutcome<T>> {
  try {
    return { ok: true, value: await within(ask(), deadlines.first) };
  } catch {
    try {
      return { ok: true, value: await within(ask(), deadlines.second) };
    } catch (error) {
      return { ok: false, reason: messageOf(error) };
    }
  }
}
