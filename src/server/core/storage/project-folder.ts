import fs from "node:fs";
import { AppError } from "../errors/app-error";

/**
 * A project's folder on the host, checked before anything relies on it: a snapshot walks it, a direct
 * session mounts it (Docker would otherwise create an empty root-owned folder in its place), an apply
 * writes into it. A folder that is gone (moved, deleted, unmounted) is a PRECONDITION_FAILED that says so.
 */
export function projectFolderGone(hostPath: string, reason: string): AppError {
  return new AppError({
    code: "PRECONDITION_FAILED",
    message: `The project folder ${clipPath(hostPath)} is gone (${reason}). Put it back (or mount it again), or remove the project and add the folder again from where it is now.`,
  });
}

/** Throws projectFolderGone unless `hostPath` is a directory this process can see. */
export function requireProjectFolder(hostPath: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(hostPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw projectFolderGone(
      hostPath,
      code === "ENOENT" ? "it does not exist" : `it cannot be opened: ${code ?? String(error)}`,
    );
  }
  if (!stat.isDirectory()) throw projectFolderGone(hostPath, "it is no longer a directory");
}

/** A path fit for a message: long ones are cut in the middle (an error never echoes a megabyte back). */
export function clipPath(text: string, max = 200): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - half)}`;
}
