import fs from "node:fs";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import type { FolderListingView } from "../../../shared/project-schemas";

const MAX_FOLDERS = 500;

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function realFolder(folder: string): string | null {
  try {
    const real = fs.realpathSync(folder);
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

function hasVisibleFolder(folder: string): boolean {
  try {
    return fs.readdirSync(folder, { withFileTypes: true }).some((e) => e.isDirectory() && !e.name.startsWith("."));
  } catch {
    return false;
  }
}

/**
 * The folders in one directory, for the add-project form's folder picker (admin only). What can be listed:
 * the user's home and the folder invariant-web was started in (`startedIn`; where `npx invariant-web` ran,
 * usually beside the user's projects), and what is inside them after resolving symlinks. It opens in the
 * home folder, or in `startedIn` when the home has no folders (root's empty /root). Names starting with "."
 * are left out; nothing but folder names and paths is returned.
 */
export function browseFolders(options: { home: string; startedIn?: string; path: string | null }): FolderListingView {
  const home = fs.realpathSync(options.home);
  const startedIn = options.startedIn ? realFolder(options.startedIn) : null;
  const roots = [...new Set([home, ...(startedIn ? [startedIn] : [])])];
  const opening = startedIn && !hasVisibleFolder(home) ? startedIn : home;
  const wanted = options.path === null ? opening : path.resolve(home, options.path);
  let real: string;
  try {
    real = fs.realpathSync(wanted);
  } catch {
    throw new AppError({ code: "NOT_FOUND", field: "path", message: `${wanted} does not exist.` });
  }
  if (!roots.some((root) => isInside(real, root)))
    throw new AppError({
      code: "FORBIDDEN",
      field: "path",
      message: `Only folders inside your home directory (${home})${startedIn && startedIn !== home ? ` or the folder invariant-web was started in (${startedIn})` : ""} can be browsed here; type another path by hand.`,
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
        return fs.statSync(target).isDirectory() && roots.some((root) => isInside(target, root));
      } catch {
        return false;
      }
    })
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
  return {
    path: real,
    parent: roots.includes(real) ? null : path.dirname(real),
    roots: roots.map((root) => ({ name: root === home ? "Home" : "Started in", path: root })),
    folders: folders.slice(0, MAX_FOLDERS).map((name) => ({ name, path: path.join(real, name) })),
    truncated: folders.length > MAX_FOLDERS,
  };
}
