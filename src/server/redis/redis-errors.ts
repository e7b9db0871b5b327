/**
 * Whether an error means Redis could not be reached (the connection is down or gave up), as opposed
 * to a command Redis refused. The tRPC layer answers these with one clear 503 instead of a stack trace.
 */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "MaxRetriesPerRequestError") return true;
  return /Connection is closed|Stream isn't writeable|connect (ECONNREFUSED|ENOENT)|ECONNRESET/.test(error.message);
}

export const REDIS_OUTAGE_MESSAGE =
  "Redis is not reachable, and this needs it (the job queue). A private Redis is restarted by invariant-web itself: try again in a few seconds; the System page shows its state. Pages that read the database keep working.";
