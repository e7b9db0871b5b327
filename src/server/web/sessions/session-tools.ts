import { AppError } from "../../core/errors/app-error";
import { imageRepository } from "../environments/environment-build-queue";
import type { ContainerChange } from "../../core/runtime/container-runtime";
import { LABEL } from "../../core/runtime/container-spec";
import { ENDING_SESSION_STATES, type InstalledToolsChangesView } from "../../../shared/session-schemas";
import { messageOf } from "../../../shared/error-message";
import type { SessionDeps } from "./session-deps";
import { sessionOf } from "./session-lifecycle";

/**
 * Never what "installed tools" means: the project files (a bind mount or a private copy), scratch space,
 * runtime state, and the product's own mount points (Docker makes a folder for each bind mount).
 */
const NOT_TOOLS = ["/workspace", "/tmp", "/run", "/opt/invariant"];
const TOP_FOLDERS = 5;

const under = (file: string, root: string) => file === root || file.startsWith(`${root}/`);

/** The changes that are tools: outside NOT_TOOLS, and no folder that changed only because one of those is in it. */
function toolChanges(changes: ContainerChange[]): ContainerChange[] {
  const kept = changes.filter((change) => !NOT_TOOLS.some((root) => under(change.path, root)));
  return kept.filter(
    (change) =>
      change.kind !== "changed" ||
      !NOT_TOOLS.some((root) => root.startsWith(`${change.path}/`)) ||
      kept.some((other) => other.path.startsWith(`${change.path}/`)),
  );
}

/** /usr/local/bin/mytool → /usr/local; /etc/apt → /etc/apt; /opt → /opt. */
function folderOf(file: string): string {
  const parts = file.split("/").filter(Boolean);
  return `/${parts.slice(0, Math.min(2, Math.max(1, parts.length - 1))).join("/")}`;
}

export function summarizeChanges(changes: ContainerChange[], sizeBytes: number): InstalledToolsChangesView {
  const tools = toolChanges(changes);
  const count = (kind: ContainerChange["kind"]) => tools.filter((change) => change.kind === kind).length;
  const folders = new Map<string, number>();
  // a changed folder is listed with its changed files: count the leaves (paths no other path lies below)
  const leaves = tools.filter((change) => !tools.some((other) => other.path.startsWith(`${change.path}/`)));
  for (const change of leaves) folders.set(folderOf(change.path), (folders.get(folderOf(change.path)) ?? 0) + 1);
  const topFolders = [...folders.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP_FOLDERS)
    .map(([folder, paths]) => ({ folder, paths }));
  return { added: count("added"), changed: count("changed"), deleted: count("deleted"), topFolders, sizeBytes };
}

async function runningContainerOf(deps: SessionDeps, sessionId: string) {
  const record = await sessionOf(deps, sessionId);
  const status = record.containerId ? await deps.runtime.containerStatus(record.containerId) : null;
  if (!record.containerId || !status || ENDING_SESSION_STATES.includes(record.state))
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Session ${record.id} has no container any more; save installed tools before finishing it.`,
    });
  return { record, containerId: record.containerId };
}

/** What the session's container changed outside /workspace and /tmp, and its writable layer's size. */
export async function installedToolsChanges(options: {
  deps: SessionDeps;
  sessionId: string;
}): Promise<InstalledToolsChangesView> {
  const { containerId } = await runningContainerOf(options.deps, options.sessionId);
  const [changes, sizeBytes] = await Promise.all([
    options.deps.runtime.containerChanges(containerId),
    options.deps.runtime.writtenBytes(containerId),
  ]);
  return summarizeChanges(changes, sizeBytes);
}

const nothing = (view: InstalledToolsChangesView) => view.added + view.changed + view.deleted === 0;

/**
 * Saves what the session installed: commits the container's filesystem (bind mounts, so the project
 * files and the Codex home, are not part of it) as the project's next environment version, made active,
 * whose parent is the version the session started from. Refused, with no version made, when the
 * container changed nothing outside /workspace and /tmp.
 */
export async function saveInstalledTools(options: { deps: SessionDeps; sessionId: string }) {
  const { deps } = options;
  const { record, containerId } = await runningContainerOf(deps, options.sessionId);
  if (nothing(await installedToolsChanges(options)))
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message:
        "Nothing was installed in this session: its container changed no file outside /workspace and /tmp, so there is nothing to save as a new environment version.",
    });
  const started = deps.clock().getTime();
  const version = await deps.environments.createBuilding({
    projectId: record.projectId,
    parentId: record.environmentVersionId,
    origin: "session",
    command: `saved from session ${record.id} (${record.kind}, started by ${record.startedBy})`,
    imageRepository: imageRepository(record.projectId),
  });
  const [repository = "", tag = ""] = splitTag(version.imageTag);
  try {
    const imageId = await deps.runtime.commitContainer(containerId, {
      repository,
      tag,
      labels: { [LABEL.managed]: "true", [LABEL.project]: record.projectId, [LABEL.environment]: version.id },
    });
    const image = await deps.runtime.inspectImage(imageId);
    const ready = await deps.environments.finish(version.id, {
      status: "ready",
      imageId,
      ...(image ? { sizeBytes: image.sizeBytes } : {}),
      durationMs: deps.clock().getTime() - started,
    });
    await deps.sessions.update(record.id, { savedVersionId: version.id });
    return ready ?? version;
  } catch (error) {
    const message = messageOf(error);
    await deps.environments.finish(version.id, { status: "failed", durationMs: 0, error: message });
    throw new AppError({ code: "INTERNAL_SERVER_ERROR", message: `Could not save the session's tools: ${message}` });
  }
}

function splitTag(imageTag: string): [string, string] {
  const at = imageTag.lastIndexOf(":");
  return [imageTag.slice(0, at), imageTag.slice(at + 1)];
}
