import { asError } from "../../../shared/error-message";
/**
 * An engine that cannot be reached (no socket, nobody listening, no permission, no answer) fails every
 * call the same way: a `DockerUnreachableError` saying so and what to do, instead of a raw `connect
 * ENOENT /var/run/docker.sock` that reads like a missing file. docker-runtime.ts wraps its methods with
 * `guardReachability`; callers that must tell an outage from a refusal use `isDockerUnreachable`.
 */
export const DOCKER_HINT =
  "Start the Docker engine (Linux: sudo systemctl start docker, or `sudo dockerd &`; macOS/Windows: open Docker Desktop) and make sure this user may use it (member of the docker group), or set DOCKER_HOST.";

const CONNECTION_CODES = new Set(["ENOENT", "ECONNREFUSED", "EACCES", "EPERM", "ENOTSOCK", "EHOSTUNREACH"]);

export class DockerUnreachableError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Docker is not reachable (${reason}). ${DOCKER_HINT}`, options);
    this.name = "DockerUnreachableError";
  }
}

/** A failure to talk to the engine at all (as opposed to the engine answering with an error status). */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, syscall, statusCode } = error as { code?: unknown; syscall?: unknown; statusCode?: unknown };
  if (statusCode !== undefined) return false; // the engine answered
  if (syscall === "connect" && typeof code === "string" && CONNECTION_CODES.has(code)) return true;
  // docker-modem's request timeout (DockerRuntimeOptions.timeoutMs) and its "socket hang up"
  return code === "ETIMEDOUT" || code === "ESOCKETTIMEDOUT" || (error as Error).message === "socket hang up";
}

export function isDockerUnreachable(error: unknown): error is DockerUnreachableError {
  return error instanceof DockerUnreachableError;
}

/** The error to throw for `error`: a DockerUnreachableError when it is a connection failure, else itself. */
export function asReachabilityError(error: unknown): Error {
  if (isConnectionFailure(error)) return new DockerUnreachableError((error as Error).message, { cause: error });
  return asError(error);
}

/**
 * The same object with every method that returns a promise rejecting with a DockerUnreachableError
 * when the engine cannot be reached. Methods that return something else are passed through as they are.
 */
export function guardReachability<T extends object>(target: T): T {
  const guarded = {} as Record<string, unknown>;
  for (const [key, value] of Object.entries(target)) {
    if (typeof value !== "function") {
      guarded[key] = value;
      continue;
    }
    const method = value as (...args: unknown[]) => unknown;
    guarded[key] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method.apply(target, args);
      } catch (error) {
        throw asReachabilityError(error);
      }
      if (result instanceof Promise)
        return (result as Promise<unknown>).catch((error: unknown) => {
          throw asReachabilityError(error);
        });
      return result;
    };
  }
  return guarded as T;
}
