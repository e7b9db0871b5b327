import type { RecordedEvent } from "../shared/event-catalog";
import type { ProjectView } from "../shared/project-schemas";
import { CliTimeout, type DashboardApi, type WorkflowContext } from "./workflow-cli";

/** What a build's start returns: the version that is being built. */
export interface StartedBuild {
  id: string;
  version: number;
}

/**
 * Starts an environment build (`environment prepare`, `dependencies install`) and follows it to its
 * end: the build log streams to stdout (to stderr with --json), the outcome goes to stderr. Returns
 * whether the version came out ready; with --timeout, gives up after that many seconds (exit 4).
 */
export async function followBuild<V extends StartedBuild>(options: {
  context: WorkflowContext;
  project: ProjectView;
  /** Enqueues the build (after the progress socket is subscribed, so no log line is missed). */
  start: (api: DashboardApi) => Promise<V>;
  /** The line printed once the build is queued, e.g. "preparing version 2 of my-app…". */
  announce: (version: StartedBuild) => string;
}): Promise<{ ready: boolean; version: V }> {
  const { context, project } = options;
  const dashboard = await context.dashboard();
  const { io } = context;
  const log = context.json ? io.err : io.out;
  const socket = dashboard.socket();
  const early: RecordedEvent[] = [];
  let versionId: string | null = null;
  let finish: (ready: boolean) => void = () => undefined;
  const done = new Promise<boolean>((resolve) => (finish = resolve));
  const handle = ({ event }: RecordedEvent) => {
    if (!("versionId" in event.data) || event.data.versionId !== versionId) return;
    if (event.type === "environment.log") log(event.data.text);
    if (event.type === "environment.finished") {
      if (event.data.status === "ready")
        io.err(`\nversion ready and active (${(event.data.durationMs / 1000).toFixed(1)} s)\n`);
      else io.err(`\nfailed: ${event.data.error ?? "unknown error"}\n`);
      finish(event.data.status === "ready");
    }
  };
  socket.on("event", (recorded: RecordedEvent) => (versionId ? handle(recorded) : early.push(recorded)));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", (error) => reject(new Error(`Cannot follow progress: ${error.message}`)));
    });
    socket.emit("subscribe", { room: `project:${project.id}` });
    const version = await options.start(dashboard.api);
    versionId = version.id;
    io.err(`${options.announce(version)}\n`);
    for (const recorded of early.splice(0)) handle(recorded);
    const ready = await untilBuilt({ context, projectId: project.id, versionId: version.id, events: done });
    return { ready, version };
  } finally {
    socket.disconnect();
  }
}

/**
 * Waits for the build's end: its `environment.finished` event, or — when no event comes (a socket that
 * dropped, a build the dashboard marked failed because its job died) — the version's state read every
 * few seconds; with --timeout, no longer than that (exit 4).
 */
async function untilBuilt(options: {
  context: WorkflowContext;
  projectId: string;
  versionId: string;
  events: Promise<boolean>;
}): Promise<boolean> {
  const { context } = options;
  const timeoutSec = context.config.workflow.timeoutSec;
  const deadline = timeoutSec === null ? null : Date.now() + timeoutSec * 1000;
  let ended = false;
  const heard = options.events.then((ready) => ((ended = true), ready));
  const api = await context.api();
  for (;;) {
    const tick = new Promise<"tick">((resolve) => setTimeout(() => resolve("tick"), context.pollMs * 3).unref());
    const first = await Promise.race([heard, tick]);
    if (first !== "tick") return first;
    const overview = await api.environments.overview.query({ projectId: options.projectId });
    const seen = overview.versions.find((v) => v.id === options.versionId);
    if (ended) return heard;
    if (!seen || seen.status !== "building") {
      context.io.err(
        `\n${seen?.status === "ready" ? "version ready and active" : `failed: ${seen?.error ?? "the version was deleted"}`}\n`,
      );
      return seen?.status === "ready";
    }
    if (deadline !== null && Date.now() >= deadline)
      throw new CliTimeout(
        `version ${seen.version} is still being prepared after ${timeoutSec} s. Follow it on the project page, or run invariant-web environment list --project ${options.projectId} later.`,
      );
  }
}
