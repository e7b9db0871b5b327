/** What went wrong, as one line of text: an Error's message, anything else thrown as a string. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Anything thrown, as an Error (a thrown string or object becomes one with its text). */
export function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  return new Error(String(error));
}
