import type { RecordedEvent } from "../shared/event-catalog";
import type { CliConfig } from "./config";
import { connectDashboard } from "./dashboard-client";

const out = (text: string) => process.stdout.write(text);

/** `invariant-web environment list|prepare --project P [--command "..."]` */
export async function runEnvironmentCommand(config: CliConfig): Promise<number> {
  const action = config.positionals[0];
  if (action !== "list" && action !== "prepare") {
    process.stderr.write(
      'invariant-web environment: use "list" or "prepare", e.g. invariant-web environment prepare --project my-app --command "apt-get install -y ripgrep"\n',
    );
    return 2;
  }
  if (!config.project) {
    process.stderr.write("invariant-web environment: --project is required (a project's id, name or directory).\n");
    return 2;
  }
  const dashboard = connectDashboard(config.dataDir);
  const projects = await dashboard.api.projects.list.query();
  const wanted = config.project;
  const project = projects.find((p) => p.id === wanted || p.name === wanted || p.hostPath === wanted);
  if (!project) {
    process.stderr.write(
      `No project "${wanted}". Known projects: ${projects.map((p) => p.name).join(", ") || "none (add one in the dashboard)"}.\n`,
    );
    return 1;
  }

  if (action === "list") {
    const overview = await dashboard.api.environments.overview.query({ projectId: project.id });
    if (config.json) out(`${JSON.stringify(overview, null, 2)}\n`);
    else {
      for (const v of overview.versions) {
        const size = v.sizeBytes === null ? "-" : `${(v.sizeBytes / 1024 ** 2).toFixed(0)} MiB`;
        out(
          `v${v.version}\t${v.status}${v.active ? " (active)" : ""}\t${size}\t${v.parentVersion ? `from v${v.parentVersion}` : "base"}\t${v.command ?? ""}\n`,
        );
      }
      out(`disk used: ${(overview.diskBytes / 1024 ** 2).toFixed(0)} MiB\n`);
    }
    return 0;
  }

  const socket = dashboard.socket();
  const events: RecordedEvent[] = [];
  let versionId: string | null = null;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));
  const handle = ({ event }: RecordedEvent) => {
    if (!("versionId" in event.data) || event.data.versionId !== versionId) return;
    if (event.type === "environment.log") out(event.data.text);
    if (event.type === "environment.finished") {
      if (event.data.status === "ready")
        process.stderr.write(`\nversion ready and active (${(event.data.durationMs / 1000).toFixed(1)} s)\n`);
      else process.stderr.write(`\nfailed: ${event.data.error ?? "unknown error"}\n`);
      resolveDone(event.data.status === "ready" ? 0 : 1);
    }
  };
  socket.on("event", (recorded: RecordedEvent) => (versionId ? handle(recorded) : events.push(recorded)));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", (error) => reject(new Error(`Cannot follow progress: ${error.message}`)));
  });
  socket.emit("subscribe", { room: `project:${project.id}` });
  try {
    const version = config.shellCommand
      ? await dashboard.api.environments.prepareWithCommand.mutate({
          projectId: project.id,
          command: config.shellCommand,
        })
      : await dashboard.api.environments.prepare.mutate({ projectId: project.id });
    versionId = version.id;
    process.stderr.write(`preparing version ${version.version} of ${project.name}…\n`);
    for (const recorded of events.splice(0)) handle(recorded);
    return await done;
  } finally {
    socket.disconnect();
  }
}
