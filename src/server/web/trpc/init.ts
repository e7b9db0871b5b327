import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { isAppError } from "../../core/errors/app-error";
import { isRedisOutage, REDIS_OUTAGE_MESSAGE } from "../../core/redis/redis-errors";
import type { Identity } from "../../../shared/roles";
import type { AppServices } from "../wiring/app-services";

export interface TrpcContext {
  identity: Identity;
  services: AppServices;
}

/** Input errors by full field path ("settings.pids"), so a form can show each next to its field. */
function fieldErrorsOf(error: ZodError): Record<string, string[]> {
  const byField: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join(".");
    (byField[key] ??= []).push(issue.message);
  }
  return byField;
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
      // input validation failures read as sentences, not as a JSON dump of zod issues
      message: cause instanceof ZodError ? cause.issues.map((issue) => issue.message).join(" ") : shape.message,
      data: {
        ...shape.data,
        stack: undefined,
        field: isAppError(cause) ? (cause.field ?? null) : null,
        fieldErrors: cause instanceof ZodError ? fieldErrorsOf(cause) : null,
      },
    };
  },
});

/** Maps the domain's AppError to tRPC errors in one place. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isAppError(result.error.cause)) {
    const cause = result.error.cause;
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  if (!result.ok && isRedisOutage(result.error.cause))
    throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: REDIS_OUTAGE_MESSAGE, cause: result.error.cause });
  return result;
});

/**
 * Every procedure needs an identity (the HTTP layer refuses requests without a token before tRPC
 * runs). Viewers may read anything; every mutation by a viewer is refused here, in one place.
 */
const roleGate = t.middleware(({ ctx, type, next }) => {
  if (type === "mutation" && ctx.identity.role !== "admin") {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "This is a read-only viewer link: changes need the admin's access link.",
    });
  }
  return next();
});

export const router = t.router;
export const procedure = t.procedure.use(mapErrors).use(roleGate);
export const createCallerFactory = t.createCallerFactory;
