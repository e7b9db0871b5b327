import fs from "node:fs";
import { constants } from "node:fs";
import { AppError } from "../errors/app-error";
import type { ProjectFolderState } from "../../../shared/project-schemas";

/**
 * A project's folder on the host, checked before anything relies on it: a snapshot walks it, a direct
 * session mounts it (Docker would otherwise create an empty root-owned folder in its place), an apply
 * writes into it, the test-file search and the dependency step read it. The project view carries its
 * state, and every action that needs it is refused with the same sentence the project page shows.
 */

/** What is at a project's path now: its folder, nothing, something that is not a folder, or a folder this user cannot read. */
export function projectFolderState(hostPath: string): { state: ProjectFolderState; code?: string } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(hostPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    return code === "ENOENT" || code === "ENOTDIR" ? { state: "missing" } : { state: "unreadable", code };
  }
  if (!stat.isDirectory()) return { state: "not-a-folder" };
  try {
    fs.accessSync(hostPath, constants.R_OK | constants.X_OK);
  } catch (error) {
    return { state: "unreadable", code: (error as NodeJS.ErrnoException).code ?? "unknown error" };
  }
  return { state: "present" };
}

/** The sentence for a folder that is not usable (null when it is): what happened, and what to do. */
export function projectFolderProblem(hostPath: string, found = projectFolderState(hostPath)): string | null {
  const shown = clipPath(hostPath);
  switch (found.state) {
    case "present":
      return null;
    case "missing":
      return `The folder ${shown} is gone. Relink the project to its new path, or remove it.`;
    case "not-a-folder":
      return `${shown} is no longer a folder. Relink the project to its folder's new path, or remove it.`;
    case "unreadable":
      return `The folder ${shown} cannot be read (${found.code ?? "permission denied"}). Fix its permissions (for example chmod u+rx), relink the project to another path, or remove it.`;
  }
}

/** The refusal of an action that needs the project's folder: PRECONDITION_FAILED with the problem's sentence. */
export function projectFolderGone(hostPath: string, found = projectFolderState(hostPath)): AppError {
  return new AppError({
    code: "PRECONDITION_FAILED",
    message:
      projectFolderProblem(hostPath, found) ?? `The folder ${clipPath(hostPath)} changed while it was read. Try again.`,
  });
}

/** Throws projectFolderGone unless `hostPath` is a folder this process can read. */
export function requireProjectFolder(hostPath: string): void {
  const found = projectFolderState(hostPath);
  if (found.state !== "present") throw projectFolderGone(hostPath, found);
}

/** A path fit for a message: long ones are cut in the middle (an error never echoes a megabyte back). */
export function clipPath(text: string, max = 200): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - half)}`;
}
