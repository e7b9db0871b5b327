/**
 * Whether an error means Redis could not be reached (the connection is down or gave up), as opposed
 * to a command Redis refused. The tRPC layer answers these with one clear 503 instead of a stack trace.
 * A refused or missing Docker socket is not Redis: those errors read the same ("connect ENOENT …"), so
 * the address they name decides.
 */
export function isRedisOutage(error: unknown, env: Partial<Record<string, string>> = process.env): boolean {
  if (!(error instanceof Error)) return false;
  // the container runtime's own sentence for an engine it cannot reach (runtime/docker-reachability.ts)
  if (error.name === "DockerUnreachableError") return false;
  if (error.name === "MaxRetriesPerRequestError") return true;
  const connect = /connect (?:ECONNREFUSED|ENOENT) (\S+)/.exec(error.message);
  if (connect) return !isDockerAddress(connect[1] ?? "", env.DOCKER_HOST);
  return /Connection is closed|Stream isn't writeable|ECONNRESET/.test(error.message);
}

/** The Docker engine's socket or TCP address (the default socket, or what DOCKER_HOST names). */
function isDockerAddress(address: string, dockerHost: string | undefined): boolean {
  if (/(^|\/)docker\.sock$/.test(address)) return true;
  if (!dockerHost) return false;
  const named = dockerHost.replace(/^(unix|tcp|http|https):\/\//, "").replace(/\/$/, "");
  return named.length > 0 && address === named;
}

export const REDIS_OUTAGE_MESSAGE =
  "Redis is not reachable, and this needs it (the job queue). A private Redis is restarted by invariant-web itself: try again in a few seconds; the System page shows its state. Pages that read the database keep working.";
