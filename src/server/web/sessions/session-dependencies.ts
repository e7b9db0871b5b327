import fs from "node:fs";
import { dependenciesOf, overlayMounts } from "../../core/dependencies/dependency-runtime";
import type { Mount } from "../../core/runtime/container-spec";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { SessionDeps } from "./session-deps";
import { gitGuardDir } from "./session-git-guard";
import type { SessionRecord } from "./sessions.queries";

/**
 * A private copy gets its image's installed dependencies as trials do: each output folder of the
 * dependency step at /workspace/<output>, as an overlay whose writes land in the session's own folder
 * (removed when it finishes), so the installed copy is never written. A direct session works in the
 * project directory, with the project's own folders.
 */
export async function sessionDependencyMounts(options: { deps: SessionDeps; record: SessionRecord }): Promise<Mount[]> {
  const { deps, record } = options;
  if (record.mode === "direct") return [];
  const dependencies = dependenciesOf((await deps.runtime.inspectImage(record.image))?.labels ?? {});
  if (!dependencies) return [];
  return overlayMounts({
    dataDir: deps.dataDir,
    dependencies,
    scratch: dataDirPaths(deps.dataDir).session(record.id).dependencyScratch,
  });
}

/** What a finished session leaves of its own files: nothing (its control folder, its dependency overlays, its git guard's copies). */
export function removeSessionFiles(deps: SessionDeps, sessionId: string): void {
  const paths = dataDirPaths(deps.dataDir).session(sessionId);
  for (const dir of [paths.control, paths.dependencyScratch, gitGuardDir(deps, sessionId)])
    fs.rmSync(dir, { recursive: true, force: true });
}
