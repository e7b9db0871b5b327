/** The one error type domain modules throw; HTTP_STATUS below is how every transport answers its `code`. */
export type AppErrorCode =
  | "BAD_REQUEST"
  | "NOT_FOUND"
  | "CONFLICT"
  | "FORBIDDEN"
  | "UNAUTHORIZED"
  | "PRECONDITION_FAILED"
  | "INTERNAL_SERVER_ERROR";

export class AppError extends Error {
  readonly code: AppErrorCode;
  /** The input field the error is about, so forms can show the message next to it. */
  readonly field: string | undefined;

  constructor(options: { code: AppErrorCode; message: string; field?: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = "AppError";
    this.code = options.code;
    this.field = options.field;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * The HTTP status of each code, the one map every transport uses: tRPC's own (its codes are these
 * names), the downloads, the worker API and the CLI reading them back.
 */
export const HTTP_STATUS: Readonly<Record<AppErrorCode, number>> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  INTERNAL_SERVER_ERROR: 500,
};

/** The code an HTTP status stands for, or null for one no AppError answers with. */
export function appErrorCodeOf(status: number): AppErrorCode | null {
  const found = Object.entries(HTTP_STATUS).find(([, value]) => value === status);
  return found ? (found[0] as AppErrorCode) : null;
}
