import fs from "node:fs/promises";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { dataDirPaths } from "../../core/storage/data-dir";
import { readRuntimeReport } from "../../core/dependencies/runtime-script";
import type { InstalledDependencies } from "../../../shared/dependency-schemas";
import type { EnvironmentQueries } from "./environments.queries";

/** A finished dependency step's dependencies with the runtimes its report file names (read before the row is finished). */
async function withRuntimeReport(options: {
  dataDir: string;
  environments: EnvironmentQueries;
  versionId: string;
}): Promise<InstalledDependencies | undefined> {
  const version = await options.environments.findById(options.versionId);
  if (version?.status !== "building" || version.origin !== "dependencies" || !version.dependencies) return undefined;
  const tree = `${dataDirPaths(options.dataDir).absolute(version.dependencies.dir)}/tree`;
  return { ...version.dependencies, runtimeReport: await readRuntimeReport(tree) };
}

/**
 * Applies a worker's environment event: output is appended to the version's log file under the data
 * dir (only the first time an event is recorded, so a replay does not duplicate it), and a finished
 * build updates its version row (a no-op when already finished), with the runtimes a dependency step reported.
 */
export async function recordEnvironmentEvent(options: {
  dataDir: string;
  environments: EnvironmentQueries;
  event: InvariantEvent;
  firstTime: boolean;
}): Promise<void> {
  const { event } = options;
  if (event.type === "environment.log") {
    if (!options.firstTime) return; // appending twice would duplicate output
    const paths = dataDirPaths(options.dataDir);
    const file = paths.environmentLog(event.data.versionId);
    await fs.mkdir(paths.environmentLogs, { recursive: true });
    await fs.appendFile(file, event.data.text);
    await options.environments.setLogPath(event.data.versionId, paths.relative(file));
  } else if (event.type === "environment.finished") {
    const { versionId, ...result } = event.data;
    const dependencies = result.status === "ready" ? await withRuntimeReport({ ...options, versionId }) : undefined;
    const finished = await options.environments.finish(versionId, result, dependencies);
    // a failed dependency step's folder is nobody's: no version carries it
    if (finished?.status === "failed" && finished.origin === "dependencies" && finished.dependencies)
      await fs.rm(dataDirPaths(options.dataDir).absolute(finished.dependencies.dir), { recursive: true, force: true });
  }
}
