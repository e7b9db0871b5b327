import { AppError } from "../../core/errors/app-error";
import { requireProjectFolder } from "../../core/storage/project-folder";
import type { EnvironmentQueries } from "../environments/environments.queries";
import type { ProjectQueries } from "../projects/projects.queries";
import { displayPath } from "../../../lib/files/byte-path";
import { walkTree } from "../../../lib/files/tree-walker";
import type { ProjectFileView, StudyDefaultsView } from "../../../shared/study-schemas";
import { messageOf } from "../../../shared/error-message";
import { isTestFilePattern } from "../../../shared/study-inputs";
import { matchTestFilePattern } from "../../core/trial-records/test-file-patterns";

const MAX_DEFAULT_CONCURRENCY = 8;
const MAX_LISTED_FILES = 500;

/**
 * What the study form starts from: the project's default configuration, time limits, and a
 * concurrency derived from the project's limits, this host and the live workers — with the reasoning
 * shown, so the user can judge it.
 */
export async function studyDefaults(options: {
  projectId: string;
  projects: Pick<ProjectQueries, "findById">;
  environments: Pick<EnvironmentQueries, "active">;
  host: { cpus: number; memoryBytes: number };
  liveWorkers: () => Promise<{ id: string; concurrency: number }[]>;
}): Promise<StudyDefaultsView> {
  const project = await options.projects.findById(options.projectId);
  if (!project)
    throw new AppError({ code: "NOT_FOUND", field: "projectId", message: `No project with id ${options.projectId}.` });
  const byCpu = Math.max(1, Math.floor(options.host.cpus / project.cpus));
  const byMemory = Math.max(1, Math.floor((options.host.memoryBytes * 0.8) / project.memoryBytes));
  const workers = await options.liveWorkers();
  const slots = workers.reduce((sum, worker) => sum + worker.concurrency, 0);
  const limits = [byCpu, byMemory, MAX_DEFAULT_CONCURRENCY, ...(slots > 0 ? [slots] : [])];
  const concurrency = Math.max(1, Math.min(...limits));
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  const reasoning = [
    `${options.host.cpus} host CPUs ÷ ${project.cpus} per trial = ${byCpu}`,
    `80% of ${gib(options.host.memoryBytes)} host memory ÷ ${gib(project.memoryBytes)} per trial = ${byMemory}`,
    slots > 0
      ? `${workers.length} live worker${workers.length === 1 ? "" : "s"} with ${slots} slot${slots === 1 ? "" : "s"}`
      : "no live worker yet (trials wait in the queue until one starts)",
    `at most ${MAX_DEFAULT_CONCURRENCY} by default`,
  ].join("; ");
  const environment = await options.environments.active(project.id);
  const ready = environment?.status === "ready" ? environment : null;
  return {
    concurrency,
    concurrencyReasoning: `${concurrency} at a time — the smallest of: ${reasoning}.`,
    agentTimeoutSec: 1800,
    evalTimeoutSec: 600,
    tokenBudget: project.runTokenBudget,
    configuration: project.defaultConfiguration,
    environment: ready ? { versionId: ready.id, version: ready.version } : null,
    // a folder that is gone first: a study is refused on it whatever the environment
    blocker:
      project.folder.problem ??
      (ready
        ? null
        : `${project.name} has no ready environment. Prepare one on the project page before starting a study.`),
  };
}

/**
 * Files of the project the way a snapshot sees them (ignore rules applied), filtered by a substring, for picking
 * test files; a folder or glob (`test/`, `tests/**\/*.py`) lists what the study would capture for it instead.
 */
export async function listProjectFiles(options: {
  projectId: string;
  query: string;
  projects: Pick<ProjectQueries, "findById">;
}): Promise<{ files: ProjectFileView[]; total: number }> {
  const project = await options.projects.findById(options.projectId);
  if (!project)
    throw new AppError({ code: "NOT_FOUND", field: "projectId", message: `No project with id ${options.projectId}.` });
  requireProjectFolder(project.hostPath); // the search reads it
  if (isTestFilePattern(options.query)) {
    const { matches, total } = await matchTestFilePattern({
      root: project.hostPath,
      pattern: options.query.trim(),
      limit: MAX_LISTED_FILES,
    });
    // nothing matched: the text may be part of a name after all ("[id]"), so it is searched for as such
    if (total > 0) return { files: matches.map((match) => ({ path: match.path, bytes: match.bytes })), total };
  }
  const walked = await walkTree({ root: project.hostPath }).catch((error: unknown) => {
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Could not read ${project.hostPath}: ${messageOf(error)}`,
    });
  });
  const needle = options.query.trim().toLowerCase();
  const matching = walked.entries
    .filter((entry) => entry.kind === "file")
    .map((entry) => ({ path: displayPath(entry.path), bytes: entry.size }))
    .filter((file) => !needle || file.path.toLowerCase().includes(needle));
  return { files: matching.slice(0, MAX_LISTED_FILES), total: matching.length };
}
