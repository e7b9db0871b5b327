import fs from "node:fs/promises";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { EnvironmentQueries } from "./environments.queries";

/**
 * Applies a worker's environment event: output is appended to the version's log file under the data
 * dir (only the first time an event is recorded, so a replay does not duplicate it), and a finished
 * build updates its version row (a no-op when already finished).
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
    const finished = await options.environments.finish(versionId, result);
    // a failed dependency step's folder is nobody's: no version carries it
    if (finished?.status === "failed" && finished.origin === "dependencies" && finished.dependencies)
      await fs.rm(dataDirPaths(options.dataDir).absolute(finished.dependencies.dir), { recursive: true, force: true });
  }
}
