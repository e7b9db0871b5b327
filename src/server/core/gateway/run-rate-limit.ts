/**
 * A run's request rate at the model gateway (no I/O): a token bucket (a burst, refilled at a steady
 * rate) plus a cap on requests in flight at once. Codex sends one model request at a time per agent
 * and real models take seconds to answer, so the defaults only stop a process that floods the gateway.
 */
export interface RateLimit {
  /** Requests a run may send at once after a quiet spell. */
  burst: number;
  /** Requests per second the bucket refills with. */
  perSecond: number;
  /** Requests of one run in flight at the same time. */
  concurrent: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { burst: 120, perSecond: 2, concurrent: 16 };

export interface RateState {
  tokens: number;
  at: number;
}

export function freshRateState(limit: RateLimit, now: number): RateState {
  return { tokens: limit.burst, at: now };
}

/**
 * Takes one request from the bucket. Returns null when it may go, else the seconds until it may
 * (for `Retry-After`) and why.
 */
export function takeRequest(options: {
  limit: RateLimit;
  state: RateState;
  inFlight: number;
  now: number;
}): { retryAfterSeconds: number; message: string } | null {
  const { limit, state, now } = options;
  if (options.inFlight >= limit.concurrent)
    return {
      retryAfterSeconds: 1,
      message: `This run already has ${options.inFlight} model requests in flight, the model gateway's limit per run.`,
    };
  state.tokens = Math.min(limit.burst, state.tokens + ((now - state.at) / 1000) * limit.perSecond);
  state.at = now;
  if (state.tokens >= 1) {
    state.tokens -= 1;
    return null;
  }
  return {
    retryAfterSeconds: Math.max(1, Math.ceil((1 - state.tokens) / limit.perSecond)),
    message: `This run sent model requests faster than the model gateway allows (${limit.burst} at once, then ${limit.perSecond} per second).`,
  };
}
