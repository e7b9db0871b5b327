import { TRPCClientError } from "@trpc/client";
import { messageOf } from "../../shared/error-message";

/** The message and the field an API error is about (set by the server's error formatter). */
export function describeError(error: unknown): {
  message: string;
  field: string | null;
  fieldErrors: Record<string, string[] | undefined>;
} {
  if (error instanceof TRPCClientError) {
    const data = (error.data ?? {}) as {
      field?: string | null;
      fieldErrors?: Record<string, string[] | undefined> | null;
    };
    const fieldErrors = data.fieldErrors ?? {};
    return { message: error.message, field: data.field ?? null, fieldErrors };
  }
  return { message: messageOf(error), field: null, fieldErrors: {} };
}
