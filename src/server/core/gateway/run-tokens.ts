import { createHash, randomBytes } from "node:crypto";
import { addUsage, totalTokens, ZERO_USAGE, type TokenUsage } from "../../../shared/token-usage";
import { STRICT_POLICY, type RunPolicy } from "./request-policy";
import type { RateState } from "./run-rate-limit";

/**
 * Per-run tokens, usage and budgets of the model gateway (no I/O). A token is stored only as its
 * SHA-256, so lookups do not compare secrets byte by byte and a heap dump holds no usable token.
 */
export interface RunRecord {
  runId: string;
  tokenHash: string | null;
  budgetTokens: number | null;
  usage: TokenUsage;
  budgetExceeded: boolean;
  /** The last thing that went wrong for this run: upstream ("HTTP 500: …", redacted), or a refusal of the gateway's ("refused a request: …"). */
  lastUpstreamError: string | null;
  /** The model name the provider put in the run's latest finished response (null: none yet). */
  reportedModel: string | null;
  /** Aborts for the run's in-flight requests (revoke ends them). */
  inFlight: Set<() => void>;
  /** What the run may ask the provider for (model, hosted tools). */
  policy: RunPolicy;
  /** The run's request bucket; null until its first request. */
  rate: RateState | null;
  /** Requests of the run the gateway is handling now (body, upstream, relay). */
  active: number;
}

export const RUN_TOKEN_PREFIX = "iwrun_";

/** What the gateway (and a terminal session's record) keeps of a run token: its SHA-256, hex. */
export function hashRunToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
const hashToken = hashRunToken;

export function createRunTokens() {
  const runs = new Map<string, RunRecord>();
  const byHash = new Map<string, string>();

  function dropToken(run: RunRecord): void {
    if (run.tokenHash) byHash.delete(run.tokenHash);
    run.tokenHash = null;
  }

  return {
    /**
     * A fresh random token for the run. Issuing again for the same run replaces its token (the old one
     * stops working), its budget and its policy (strict unless given); usage so far is kept.
     */
    issue(options: {
      runId: string;
      budgetTokens?: number | null;
      policy?: RunPolicy;
      token?: string;
      /** The hash of a token issued before a restart (a terminal session's container still holds the token; its record only the hash). */
      tokenHash?: string;
    }): string {
      // a given token is one issued before a restart (a terminal session's container still holds it)
      const token =
        options.token?.startsWith(RUN_TOKEN_PREFIX) === true
          ? options.token
          : `${RUN_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
      const givenHash = options.tokenHash && /^[0-9a-f]{64}$/.test(options.tokenHash) ? options.tokenHash : null;
      const run = runs.get(options.runId) ?? {
        runId: options.runId,
        tokenHash: null,
        budgetTokens: null,
        usage: ZERO_USAGE,
        budgetExceeded: false,
        lastUpstreamError: null,
        reportedModel: null,
        inFlight: new Set(),
        policy: STRICT_POLICY,
        rate: null,
        active: 0,
      };
      dropToken(run);
      run.tokenHash = givenHash ?? hashToken(token);
      run.budgetTokens = options.budgetTokens ?? null;
      run.policy = options.policy ?? STRICT_POLICY;
      run.budgetExceeded = run.budgetTokens !== null && totalTokens(run.usage) >= run.budgetTokens;
      runs.set(options.runId, run);
      byHash.set(run.tokenHash, options.runId);
      // re-issued by hash: the token is the container's, and nobody here knows it
      return givenHash ? "" : token;
    },
    /** The live run a token belongs to, or null (unknown or revoked). */
    lookup(token: string): RunRecord | null {
      const runId = byHash.get(hashToken(token));
      return runId === undefined ? null : (runs.get(runId) ?? null);
    },
    /** Ends the run's token and aborts its in-flight requests; its usage stays readable. */
    revoke(runId: string): void {
      const run = runs.get(runId);
      if (!run) return;
      dropToken(run);
      for (const abort of [...run.inFlight]) abort();
      run.inFlight.clear();
    },
    forget(runId: string): void {
      this.revoke(runId);
      runs.delete(runId);
    },
    get(runId: string): RunRecord | null {
      return runs.get(runId) ?? null;
    },
    /** Adds a response's usage; returns the new total and whether this addition crossed the budget. */
    record(runId: string, usage: TokenUsage): { total: TokenUsage; crossedBudget: boolean } | null {
      const run = runs.get(runId);
      if (!run) return null;
      run.usage = addUsage(run.usage, usage);
      const crossedBudget =
        !run.budgetExceeded && run.budgetTokens !== null && totalTokens(run.usage) >= run.budgetTokens;
      if (crossedBudget) run.budgetExceeded = true;
      return { total: run.usage, crossedBudget };
    },
    runCount(): number {
      return runs.size;
    },
  };
}
export type RunTokens = ReturnType<typeof createRunTokens>;
