import fsp from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error";

/**
 * Symbolic links among a study's captured files: captured as links (their target text, stored like a
 * file's bytes) and restored as links, so a fixture folder that links to a shared file round-trips. A
 * link is refused when its target leaves the project: an absolute target (in a trial the project is at
 * /workspace, so a host path is not the project's), or a relative one that climbs above the project root.
 */

/** Why a link at `relative` (a project path) with `target` may not be captured, or null when it may. */
export function linkTargetProblem(relative: string, target: string): string | null {
  if (target === "") return `${relative} is a symbolic link with an empty target; remove it or capture a real file.`;
  if (target.startsWith("/"))
    return `${relative} is a symbolic link to the absolute path ${target}, which is outside the project in a trial (the project is at /workspace there). Make the link relative (for example ../fixtures/data.json), or capture the real file instead.`;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(relative), target));
  if (resolved === ".." || resolved.startsWith("../"))
    return `${relative} is a symbolic link to ${target}, which resolves outside the project root; a trial only has the project. Copy what it points to into the project, or leave the link out of the test files.`;
  return null;
}

/** The target text of the link at `relative` inside `root`, checked to stay inside the project. */
export async function readCapturedLink(options: { root: string; relative: string; field: string }): Promise<Buffer> {
  const { root, relative, field } = options;
  const target = await fsp.readlink(path.join(root, relative), { encoding: "buffer" }).catch((error: unknown) => {
    throw new AppError({
      code: "BAD_REQUEST",
      field,
      message: `${relative} changed while it was being read (${(error as NodeJS.ErrnoException).code ?? "not a link any more"}); pick the file again.`,
    });
  });
  const problem = linkTargetProblem(relative, target.toString("latin1"));
  if (problem) throw new AppError({ code: "BAD_REQUEST", field, message: problem });
  return target;
}
