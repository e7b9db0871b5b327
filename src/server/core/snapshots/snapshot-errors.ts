import path from "node:path";
import { AppError, isAppError } from "../errors/app-error";
import { clipPath, projectFolderGone, projectFolderState } from "../storage/project-folder";

/**
 * What a snapshot says when the file system fails it: never a raw errno (`ENOENT … lstat`) or a 500.
 * - the project folder itself is gone → PRECONDITION_FAILED (project-folder.ts);
 * - an entry vanished or changed kind between listing and reading it (a build writing, a process of
 *   /proc ending) → CONFLICT: files changed while the snapshot was taken; try again;
 * - an entry this user may not read → PRECONDITION_FAILED naming it;
 * - anything else the file system refuses → PRECONDITION_FAILED with its path and code.
 */
export const CHANGED_WHILE_TAKEN = "Files changed while the snapshot was taken; try again";

const VANISHED = new Set(["ENOENT", "ENOTDIR", "ESTALE", "ELOOP", "EINVAL"]);
const DENIED = new Set(["EACCES", "EPERM"]);

/** The path an fs error is about: relative to the project folder when it is inside it (`inside`). */
function entryOf(error: NodeJS.ErrnoException, root: string): { entry: string; inside: boolean } {
  const raw = (error as { path?: unknown }).path;
  const full = Buffer.isBuffer(raw) ? raw.toString("utf8") : typeof raw === "string" ? raw : "";
  if (!full) return { entry: "an entry", inside: true };
  const relative = path.relative(root, full);
  const inside = !relative.startsWith("..") && !path.isAbsolute(relative);
  return { entry: clipPath(inside ? relative || "." : full), inside };
}

export function asSnapshotError(error: unknown, root: string): unknown {
  if (isAppError(error)) return error;
  const errno = error as NodeJS.ErrnoException;
  const code = typeof errno?.code === "string" ? errno.code : null;
  if (!code) return error;
  const folder = projectFolderState(root);
  if (folder.state !== "present") return projectFolderGone(root, folder);
  const { entry, inside } = entryOf(errno, root);
  if (!inside)
    return new AppError({
      code: "INTERNAL_SERVER_ERROR",
      message: `The snapshot could not be stored in the data dir (${code} on ${entry}). Nothing was saved; check the data dir's free space and permissions, then try again.`,
      cause: error,
    });
  if (VANISHED.has(code))
    return new AppError({
      code: "CONFLICT",
      message: `${CHANGED_WHILE_TAKEN} (${entry} vanished or changed while it was read: ${code} on ${errno.syscall ?? "read"}). Nothing was saved; try again when the project is quiet.`,
      cause: error,
    });
  if (DENIED.has(code))
    return new AppError({
      code: "PRECONDITION_FAILED",
      message: `${entry} in the project folder cannot be read by this user (${code}). Fix its permissions, or leave it out with a .gitignore rule, then try again.`,
      cause: error,
    });
  return new AppError({
    code: "PRECONDITION_FAILED",
    message: `The snapshot could not read ${entry} in the project folder (${code} on ${errno.syscall ?? "read"}). Nothing was saved; check the folder, then try again.`,
    cause: error,
  });
}
