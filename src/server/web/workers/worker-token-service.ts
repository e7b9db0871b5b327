import { AppError } from "../../core/errors/app-error";
import { hashToken, newToken } from "../access/access-token";
import type { WorkerTokenQueries, WorkerTokenView } from "./worker-tokens.queries";

/** Worker tokens start with this, so a token pasted in the wrong place is recognised as one. */
export const WORKER_TOKEN_PREFIX = "w_";
/** lastUsedAt is written at most this often per token. */
const TOUCH_EVERY_MS = 10_000;

export type WorkerIdentityCheck =
  { ok: true; token: WorkerTokenView } | { ok: false; reason: "missing" | "unknown" | "revoked"; message: string };

/**
 * Tokens that workers on other hosts authenticate their HTTP calls with. They open the worker API
 * (/api/worker/…) and nothing else; the admin and viewer APIs refuse them, and the worker API refuses
 * every other token. Shown once at creation; the database keeps the hash.
 */
export function createWorkerTokenService(deps: { tokens: WorkerTokenQueries; clock?: () => Date }) {
  const clock = deps.clock ?? (() => new Date());
  const touched = new Map<string, number>();

  return {
    list: () => deps.tokens.list(),

    async create(input: { name: string }): Promise<{ token: string; worker: WorkerTokenView }> {
      const token = newToken(WORKER_TOKEN_PREFIX);
      const worker = await deps.tokens.create({ name: input.name, tokenHash: hashToken(token) });
      return { token, worker };
    },

    async revoke(id: string): Promise<WorkerTokenView> {
      const revoked = await deps.tokens.revoke(id, clock());
      if (!revoked) throw new AppError({ code: "NOT_FOUND", message: `No worker token with id ${id}.` });
      return revoked;
    },

    /** Who a worker API request comes from; a revoked token is refused at once, with a sentence saying so. */
    async identify(bearer: string | undefined): Promise<WorkerIdentityCheck> {
      if (!bearer)
        return {
          ok: false,
          reason: "missing",
          message:
            "The worker API needs a worker token (Authorization: Bearer w_…). Create one on the System page and start the worker with --worker-token-file.",
        };
      const found = bearer.startsWith(WORKER_TOKEN_PREFIX) ? await deps.tokens.findByHash(hashToken(bearer)) : null;
      if (!found)
        return {
          ok: false,
          reason: "unknown",
          message:
            "This is not a worker token of this dashboard. Create one on the System page (Worker tokens); the admin token and viewer links do not open the worker API.",
        };
      if (found.revokedAt)
        return {
          ok: false,
          reason: "revoked",
          message: `The worker token "${found.name}" was revoked on ${found.revokedAt}. This worker may no longer take jobs; create a new token on the System page and restart it with that one.`,
        };
      const now = clock().getTime();
      if (now - (touched.get(found.id) ?? 0) > TOUCH_EVERY_MS) {
        touched.set(found.id, now);
        await deps.tokens.touch(found.id, new Date(now));
      }
      return { ok: true, token: found };
    },
  };
}

export type WorkerTokenService = ReturnType<typeof createWorkerTokenService>;
