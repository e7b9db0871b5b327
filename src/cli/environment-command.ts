import type { RecordedEvent } from "../shared/event-catalog";
import { environmentVersionOutput } from "./cli-views";
import {
  CliTimeout,
  resolveProject,
  runWorkflow,
  usageFailure,
  type WorkflowContext,
  type WorkflowOptions,
} from "./workflow-cli";

const EXAMPLE = 'invariant-web environment prepare --project my-app --command "apt-get install -y ripgrep"';

/**
 * `invariant-web environment list|prepare --project P|--last [--command "..."]`, through the running
 * dashboard. `prepare` streams the build log (to stdout; to stderr with --json) until the version is ready.
 */
export function runEnvironmentCommand(options: WorkflowOptions): Promise<number> {
  const { config } = options;
  const action = config.positionals[0];
  if (action === "list")
    return runWorkflow(options, "environment list", async (context) => {
      const project = await resolveProject(context, { ref: config.project, example: EXAMPLE });
      const overview = await (await context.api()).environments.overview.query({ projectId: project.id });
      const lines = overview.versions.map((v) => {
        const size = v.sizeBytes === null ? "-" : `${(v.sizeBytes / 1024 ** 2).toFixed(0)} MiB`;
        return `v${v.version}\t${v.status}${v.active ? " (active)" : ""}\t${size}\t${v.parentVersion ? `from v${v.parentVersion}` : "base"}\t${v.command ?? ""}`;
      });
      lines.push(`disk used: ${(overview.diskBytes / 1024 ** 2).toFixed(0)} MiB`);
      return {
        data: {
          project: { id: project.id, name: project.name },
          versions: overview.versions.map(environmentVersionOutput),
          diskBytes: overview.diskBytes,
        },
        human: lines.join("\n"),
      };
    });
  if (action !== "prepare") return usageFailure(options, "environment", `use "list" or "prepare", e.g. ${EXAMPLE}`);

  return runWorkflow(options, "environment prepare", async (context) => {
    const project = await resolveProject(context, { ref: config.project, example: EXAMPLE });
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
      const api = dashboard.api;
      const version = config.shellCommand
        ? await api.environments.prepareWithCommand.mutate({ projectId: project.id, command: config.shellCommand })
        : await api.environments.prepare.mutate({ projectId: project.id });
      versionId = version.id;
      io.err(`preparing version ${version.version} of ${project.name}…\n`);
      for (const recorded of early.splice(0)) handle(recorded);
      const ready = await untilBuilt({ context, projectId: project.id, versionId: version.id, events: done });
      const overview = await api.environments.overview.query({ projectId: project.id });
      const final = overview.versions.find((v) => v.id === version.id) ?? version;
      return {
        data: { project: { id: project.id, name: project.name }, version: environmentVersionOutput(final) },
        human: "",
        exit: ready ? "ok" : "failure",
      };
    } finally {
      socket.disconnect();
    }
  });
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
