/** The one error type domain modules throw. The tRPC layer maps `code` to a response in one place. */
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
