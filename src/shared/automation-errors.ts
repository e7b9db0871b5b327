import { TRPCClientError } from "@trpc/client";
import { z } from "zod";
import { messageOf } from "./error-message";

/**
 * The error kinds of the automation surfaces — the CLI's exit codes and `--json` errors
 * (docs/automation.md "Exit codes") and the MCP server's tool errors — and the one classification
 * of anything thrown into them. Here, not in src/cli, because the MCP server (src/server/web/mcp) uses it too.
 */

/** Exit codes of every workflow command. */
export const EXIT = {
  /** It did what was asked. */
  ok: 0,
  /** It could not: the dashboard is not running or unreachable, an internal error, a build or apply that failed. */
  failure: 1,
  /** The command line or the input file is wrong (nothing was sent, or the dashboard refused the input's shape). */
  usage: 2,
  /** The dashboard answered and refused: not found, conflict (e.g. already stopped), precondition (no environment), viewer, apply conflicts. */
  refused: 3,
  /** `study wait` / `study follow` gave up after --timeout. */
  timeout: 4,
} as const;
export type ExitKind = keyof typeof EXIT;

export const cliErrorSchema = z.object({
  kind: z.enum(["failure", "usage", "refused", "timeout"]),
  exitCode: z.int(),
  /** The API's error code (NOT_FOUND, CONFLICT, PRECONDITION_FAILED, BAD_REQUEST, …) or null for the CLI's own. */
  code: z.string().nullable(),
  message: z.string(),
  /** The field the error is about, as a dotted path ("configurations.0.model"), or null. */
  field: z.string().nullable(),
  /** Every validation message by field path, or null. */
  fieldErrors: z.record(z.string(), z.array(z.string())).nullable(),
});
export type CliError = z.infer<typeof cliErrorSchema>;

/** A command line (or tool call) that cannot be carried out: its message says what was wrong and how to write it. */
export class UsageError extends Error {}

/** The dashboard answered and refused, or the CLI refuses for the same reasons (no such project). */
export class CliRefusal extends Error {
  constructor(
    message: string,
    readonly code: string = "NOT_FOUND",
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

/** An input that does not fit its schema: every problem by field path. */
export class CliInputError extends Error {
  constructor(
    message: string,
    readonly fieldErrors: Record<string, string[]>,
  ) {
    super(message);
  }
}

export class CliTimeout extends Error {}

/** The dashboard is not running for this data dir (or cannot be reached). */
export class CliFailure extends Error {}

const REFUSING_CODES = new Set([
  "BAD_REQUEST",
  "NOT_FOUND",
  "CONFLICT",
  "PRECONDITION_FAILED",
  "FORBIDDEN",
  "UNAUTHORIZED",
  "PAYLOAD_TOO_LARGE",
]);

/** Sorts any error into the automation kinds (EXIT). */
export function classifyError(error: unknown): CliError {
  const base = { code: null, field: null, fieldErrors: null };
  const of = (kind: ExitKind, rest: Partial<CliError> & { message: string }): CliError => ({
    ...base,
    kind: kind === "ok" ? "failure" : kind,
    exitCode: EXIT[kind],
    ...rest,
  });
  if (error instanceof UsageError) return of("usage", { message: error.message });
  if (error instanceof CliInputError) {
    const first = Object.keys(error.fieldErrors)[0] ?? null;
    return of("usage", { message: error.message, field: first, fieldErrors: error.fieldErrors });
  }
  if (error instanceof CliRefusal)
    return of("refused", { message: error.message, code: error.code, field: error.field });
  if (error instanceof CliTimeout) return of("timeout", { message: error.message });
  if (error instanceof TRPCClientError) {
    const data = (error as TRPCClientError<never>).data as
      { code?: string; field?: string | null; fieldErrors?: Record<string, string[]> | null } | undefined;
    const code = data?.code ?? null;
    const fieldErrors = data?.fieldErrors ?? null;
    const field = data?.field ?? (fieldErrors ? (Object.keys(fieldErrors)[0] ?? null) : null);
    if (code === "BAD_REQUEST" && fieldErrors) return of("usage", { message: error.message, code, field, fieldErrors });
    if (code && REFUSING_CODES.has(code)) return of("refused", { message: error.message, code, field, fieldErrors });
    const message = code
      ? error.message
      : `could not reach the dashboard (${error.message}). Is invariant-web still running for this data dir?`;
    return of("failure", { message, code });
  }
  return of("failure", { message: messageOf(error) });
}

/** Every issue of a zod error by its dotted field path ("configurations.0.repeats"). */
export function fieldErrorsOf(error: z.ZodError): Record<string, string[]> {
  const byField: Record<string, string[]> = {};
  for (const issue of error.issues) (byField[issue.path.map(String).join(".")] ??= []).push(issue.message);
  return byField;
}
