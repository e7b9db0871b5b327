import fs from "node:fs";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import type { FolderListingView } from "../../../shared/project-schemas";

const MAX_FOLDERS = 500;

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * The folders in one directory of the user's home, for the add-project form's folder picker (admin
 * only). Only the home directory and what is inside it (after resolving symlinks) can be listed; names
 * starting with "." are left out; nothing but folder names and paths is returned.
 */
export function browseFolders(options: { home: string; path: string | null }): FolderListingView {
  const home = fs.realpathSync(options.home);
  const wanted = options.path === null ? home : path.resolve(home, options.path);
  let real: string;
  try {
    real = fs.realpathSync(wanted);
  } catch {
    throw new AppError({ code: "NOT_FOUND", field: "path", message: `${wanted} does not exist.` });
  }
  if (!isInside(real, home))
    throw new AppError({
      code: "FORBIDDEN",
      field: "path",
      message: `Only folders inside your home directory (${home}) can be browsed here; type another path by hand.`,
    });
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(real, { withFileTypes: true });
  } catch (error) {
    throw new AppError({
      code: "BAD_REQUEST",
      field: "path",
      message: `${real} cannot be listed: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    });
  }
  const folders = entries
    .filter((entry) => !entry.name.startsWith("."))
    .filter((entry) => {
      if (entry.isDirectory()) return true;
      if (!entry.isSymbolicLink()) return false;
      try {
        const target = fs.realpathSync(path.join(real, entry.name));
        return fs.statSync(target).isDirectory() && isInside(target, home);
      } catch {
        return false;
      }
    })
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
  return {
    path: real,
    parent: real === home ? null : path.dirname(real),
    folders: folders.slice(0, MAX_FOLDERS).map((name) => ({ name, path: path.join(real, name) })),
    truncated: folders.length > MAX_FOLDERS,
  };
}
