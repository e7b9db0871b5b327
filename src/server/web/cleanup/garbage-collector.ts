import fsp from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { LABEL } from "../../core/runtime/container-spec";
import type { ContainerRuntime, ImageSummary } from "../../core/runtime/container-runtime";
import { removeTree } from "../../core/workspaces/workspace-store";
import { dataDirPaths, isWorkspaceId } from "../../core/storage/data-dir";
import type { StorageReferences } from "./storage-references.queries";
import { messageOf } from "../../../shared/error-message";

/**
 * The periodic garbage collector of the web process: removes what no row and no live run refers to —
 * workspaces and the folders of deleted trials and studies (a data-dir scan), committed trial images and
 * environment images of the data dir's projects (found by label), and gateway sockets of dead workers —
 * and says what it removed. Nothing younger than `minAgeMs` is touched (a run records its workspace and
 * image a moment after it makes them), nor anything a trial that has not ended or an existing row names.
 */
export interface GarbageReport {
  at: string;
  durationMs: number;
  removed: { workspaces: string[]; images: string[]; sockets: string[]; folders: string[]; volumes: string[] };
  /** What was unreferenced but could not be removed (an image a container still uses, …), one sentence each. */
  kept: string[];
}

export interface GarbageCollectorDeps {
  dataDir: string;
  runtime: Pick<ContainerRuntime, "listImages" | "removeImage" | "removeDanglingVolumes">;
  references: () => Promise<StorageReferences>;
  /** Ids of the workers with a live heartbeat: their gateway sockets are kept. */
  liveWorkers: () => Promise<Set<string>>;
  /** Nothing younger than this is removed; 1 hour by default. */
  minAgeMs?: number;
  clock?: () => Date;
  log: (message: string) => void;
}

export const DEFAULT_GARBAGE_MIN_AGE_MS = 3600_000;
const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

type Collection = Pick<GarbageReport, "removed" | "kept">;
interface Pass {
  deps: GarbageCollectorDeps;
  refs: StorageReferences;
  /** Whether something last changed at `time` is old enough to go. */
  old: (time: Date) => boolean;
  started: Date;
  minAgeMs: number;
  out: Collection;
}

function message(error: unknown): string {
  return messageOf(error);
}

async function entries(dir: string): Promise<string[]> {
  return fsp.readdir(dir).catch(() => [] as string[]);
}

async function modifiedAt(file: string): Promise<Date | null> {
  return fsp.lstat(file).then(
    (stat) => stat.mtime,
    () => null,
  );
}

/** Removes one path if it is old enough; records it under `kind`. */
async function removeIfOld(pass: Pass, target: { file: string; kind: keyof Collection["removed"]; name: string }) {
  const changed = await modifiedAt(target.file);
  if (!changed || !pass.old(changed)) return;
  try {
    await removeTree(target.file);
    pass.out.removed[target.kind].push(target.name);
  } catch (error) {
    pass.out.kept.push(`${target.name}: ${message(error)}`);
  }
}

/** The project a workspace was made for (its meta.json); null when unreadable. */
async function workspaceProject(dir: string): Promise<string | null> {
  try {
    const meta = JSON.parse(await fsp.readFile(path.join(dir, "meta.json"), "utf8")) as { projectId?: unknown };
    return typeof meta.projectId === "string" ? meta.projectId : null;
  } catch {
    return null;
  }
}

/** Workspaces nothing names (and the temporary folders of workspaces whose making was cut short). */
async function collectWorkspaces(pass: Pass): Promise<void> {
  const dir = dataDirPaths(pass.deps.dataDir).workspaces;
  for (const name of await entries(dir)) {
    // .tmp-ws-*: a workspace whose making was cut short; .probe-*: the overlay probe's (workspace-kind.ts)
    const orphan = isWorkspaceId(name)
      ? !pass.refs.workspaceIds.has(name)
      : name.startsWith(".tmp-ws-") || name.startsWith(".probe-");
    if (!orphan) continue;
    // a running preflight's workspace is named nowhere: none of its project's goes while it runs
    const project = await workspaceProject(path.join(dir, name));
    if (project && pass.refs.preflightProjectIds.has(project)) continue;
    await removeIfOld(pass, { file: path.join(dir, name), kind: "workspaces", name });
  }
}

/** `trials/<id>/` and `studies/<id>/` whose rows are gone (a removal that could not finish, a crash). */
async function collectFolders(pass: Pass): Promise<void> {
  const paths = dataDirPaths(pass.deps.dataDir);
  const owners = [
    { dir: path.dirname(paths.trial("x")), rows: pass.refs.trialIds, label: "trials" },
    { dir: path.dirname(paths.study("x")), rows: pass.refs.studyIds, label: "studies" },
  ];
  for (const owner of owners)
    for (const name of await entries(owner.dir))
      if (SAFE_ID.test(name) && !owner.rows.has(name))
        await removeIfOld(pass, { file: path.join(owner.dir, name), kind: "folders", name: `${owner.label}/${name}` });
}

/** A snapshot tree whose writing was cut short (`snapshots/<id>/.tmp-tree-*`, overlay-workspace.ts). */
async function collectSnapshotTemps(pass: Pass): Promise<void> {
  const root = dataDirPaths(pass.deps.dataDir).snapshots;
  for (const snapshot of await entries(root))
    for (const name of await entries(path.join(root, snapshot)))
      if (name.startsWith(".tmp-tree-"))
        await removeIfOld(pass, {
          file: path.join(root, snapshot, name),
          kind: "folders",
          name: `snapshots/${snapshot}/${name}`,
        });
}

/**
 * Overlay volumes of this data dir's projects that no container uses (their container was removed without
 * its volumes, say by hand): a volume of a live container is never dangling, so these can go at once.
 */
async function collectVolumes(pass: Pass): Promise<void> {
  const createdBefore = new Date(pass.started.getTime() - pass.minAgeMs);
  for (const projectId of pass.refs.projectIds)
    pass.out.removed.volumes.push(
      ...(await pass.deps.runtime.removeDanglingVolumes({ [LABEL.project]: projectId }, { createdBefore })),
    );
}

/** Whether an image of one of the data dir's projects is still needed. */
function imageNeeded(image: ImageSummary, refs: StorageReferences): boolean {
  if (refs.images.has(image.id) || image.repoTags.some((tag) => refs.images.has(tag))) return true;
  const trial = image.labels[LABEL.trial];
  // a committed trial image: needed while its trial runs (its commit is recorded a moment later)
  // (a label set empty counts as absent: every container we create sets the ownership labels, empty when unowned)
  if (image.labels[LABEL.run]) return Boolean(trial) && refs.openTrialIds.has(trial ?? "");
  const version = image.labels[LABEL.environment];
  // an environment image: needed while its version exists; an image of no known kind is not ours to judge
  return !version || refs.environmentVersionIds.has(version);
}

/** Unneeded images of this data dir's projects: trial images first, then the rest newest first (children before parents). */
async function collectImages(pass: Pass): Promise<void> {
  const images = (await pass.deps.runtime.listImages({ [LABEL.managed]: "true" }))
    .filter((image) => pass.refs.projectIds.has(image.labels[LABEL.project] ?? ""))
    .filter((image) => !imageNeeded(image, pass.refs) && pass.old(image.createdAt))
    .sort(
      (a, b) =>
        Number(Boolean(b.labels[LABEL.run])) - Number(Boolean(a.labels[LABEL.run])) ||
        b.createdAt.getTime() - a.createdAt.getTime(),
    );
  let pending = images;
  for (;;) {
    const failed: { image: ImageSummary; reason: string }[] = [];
    for (const image of pending) {
      try {
        await pass.deps.runtime.removeImage(image.id);
        pass.out.removed.images.push(`${image.repoTags[0] ?? "untagged"} (${image.id.slice(0, 19)})`);
      } catch (error) {
        failed.push({ image, reason: message(error) });
      }
    }
    // an image another still builds on goes once that one has gone
    if (failed.length === 0 || failed.length === pending.length) {
      pass.out.kept.push(...failed.map(({ image, reason }) => `image ${image.id.slice(0, 19)}: ${reason}`));
      return;
    }
    pending = failed.map(({ image }) => image);
  }
}

/** Whether something listens on a unix socket (a worker's model gateway). */
function listening(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: file });
    const done = (answer: boolean) => (socket.destroy(), resolve(answer));
    socket.once("connect", () => done(true));
    socket.once("error", (error: NodeJS.ErrnoException) =>
      done(error.code !== "ECONNREFUSED" && error.code !== "ENOENT"),
    );
    socket.setTimeout(2000, () => done(true));
  });
}

/** `gateway/<worker>.sock` of workers that are gone: no heartbeat and nothing listening. */
async function collectSockets(pass: Pass): Promise<void> {
  const dir = path.dirname(dataDirPaths(pass.deps.dataDir).gatewaySocket("x"));
  const live = await pass.deps.liveWorkers();
  for (const name of await entries(dir)) {
    const file = path.join(dir, name);
    if (!name.endsWith(".sock") || live.has(name.slice(0, -".sock".length))) continue;
    const stat = await fsp.lstat(file).catch(() => null);
    if (!stat?.isSocket() || !pass.old(stat.mtime) || (await listening(file))) continue;
    await fsp.rm(file, { force: true }).then(
      () => pass.out.removed.sockets.push(`gateway/${name}`),
      (error: unknown) => pass.out.kept.push(`gateway/${name}: ${message(error)}`),
    );
  }
}

/** One line: what a collection removed, and what it could not. */
export function describeGarbage(report: GarbageReport): string {
  const { workspaces, images, sockets, folders, volumes } = report.removed;
  const parts = [
    workspaces.length ? `${workspaces.length} workspace(s) (${workspaces.join(", ")})` : "",
    images.length ? `${images.length} image(s) (${images.join(", ")})` : "",
    sockets.length ? `${sockets.length} socket file(s) (${sockets.join(", ")})` : "",
    folders.length ? `${folders.length} folder(s) of deleted trials and studies (${folders.join(", ")})` : "",
    volumes.length ? `${volumes.length} overlay volume(s) (${volumes.join(", ")})` : "",
  ].filter(Boolean);
  const removed = parts.length ? `removed ${parts.join(", ")}` : "found nothing to remove";
  return `storage: garbage collection ${removed}${report.kept.length ? `; could not remove ${report.kept.join("; ")}` : ""}`;
}

export function createGarbageCollector(deps: GarbageCollectorDeps) {
  const clock = deps.clock ?? (() => new Date());
  const minAgeMs = deps.minAgeMs ?? DEFAULT_GARBAGE_MIN_AGE_MS;
  let last: GarbageReport | null = null;
  let running: Promise<GarbageReport> | null = null;
  let timer: NodeJS.Timeout | null = null;

  async function run(): Promise<GarbageReport> {
    const started = clock();
    const refs = await deps.references();
    const out: Collection = {
      removed: { workspaces: [], images: [], sockets: [], folders: [], volumes: [] },
      kept: [],
    };
    const pass: Pass = {
      deps,
      refs,
      out,
      started,
      minAgeMs,
      old: (time) => started.getTime() - time.getTime() >= minAgeMs,
    };
    const steps = {
      workspaces: collectWorkspaces,
      folders: collectFolders,
      snapshots: collectSnapshotTemps,
      images: collectImages,
      volumes: collectVolumes,
      sockets: collectSockets,
    };
    for (const [name, step] of Object.entries(steps))
      await step(pass).catch((error: unknown) => out.kept.push(`${name}: not collected (${message(error)})`));
    last = { at: started.toISOString(), durationMs: clock().getTime() - started.getTime(), ...out };
    if (Object.values(out.removed).some((list) => list.length > 0) || out.kept.length > 0)
      deps.log(describeGarbage(last));
    return last;
  }

  /** Collects now (one collection at a time: a call while one runs gets that one's report). */
  const collect = (): Promise<GarbageReport> => (running ??= run().finally(() => (running = null)));

  return {
    collect,
    /** Collects now and every `everyMs`. */
    start(everyMs: number): void {
      const tick = () =>
        void collect().catch((error: unknown) => deps.log(`storage: garbage collection failed: ${message(error)}`));
      tick();
      timer = setInterval(tick, everyMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => undefined);
    },
    /** The last collection's report (null before the first one ends). */
    lastReport: (): GarbageReport | null => last,
  };
}

export type GarbageCollector = ReturnType<typeof createGarbageCollector>;
