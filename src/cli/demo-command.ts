import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { StudyView } from "../shared/study-schemas";
import type { CliConfig } from "./config";
import { connectDashboard } from "./dashboard-client";
import { configurationName } from "../shared/domain-names";

const say = (text: string) => process.stderr.write(`${text}\n`);
const FINISHED = new Set(["done", "stopped", "refused"]);

/** Starts invariant-web for this data dir as a child (no browser) and waits for its URL line. */
async function startDashboard(options: { config: CliConfig; cliPath: string }): Promise<ChildProcess> {
  const { config } = options;
  const child = spawn(
    process.execPath,
    [options.cliPath, "--data-dir", config.dataDir, "--host", config.host, "--port", String(config.port), "--no-open"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      if (!/ is running at /.test(line)) return;
      say(line.replace(/\?token=\S+/, ""));
      resolve();
    });
    child.once("exit", (code) =>
      reject(new Error(`invariant-web exited (code ${String(code)}) before it was running`)),
    );
  });
  return child;
}

function verdictLine(study: StudyView): string {
  return study.trials
    .map((trial) => {
      const configuration = study.configurations.find((c) => c.id === trial.configurationId);
      const verdict = trial.verdict ? `${trial.verdict.passed}/${trial.verdict.total}` : trial.state;
      return `${configuration?.label ?? configurationName(trial.choice)} ${verdict}`;
    })
    .join(", ");
}

/** Follows the study until it has finished, printing a line whenever its verdicts change. */
async function follow(dashboard: ReturnType<typeof connectDashboard>, studyId: string): Promise<StudyView> {
  let last = "";
  for (;;) {
    const study = await dashboard.api.studies.get.query({ studyId });
    const baseline = study.baseline ? `preflight ${study.baseline.passed}/${study.baseline.total}` : "preflight";
    const line = `${study.state}: ${baseline}; ${verdictLine(study)}`;
    if (line !== last) say(line);
    last = line;
    if (FINISHED.has(study.state)) return study;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * `invariant-web demo [--scripted] [DIR]`: the demo study through the running dashboard (started here
 * when none runs for the data dir, and kept running afterwards): the calendar task, three efforts, the
 * 23 shared checks; followed to the end. Running it again reopens the same study.
 */
export async function runDemoCommand(options: { config: CliConfig; root: string }): Promise<number> {
  const { config } = options;
  let child: ChildProcess | null = null;
  let dashboard: ReturnType<typeof connectDashboard>;
  try {
    dashboard = connectDashboard(config.dataDir);
  } catch {
    child = await startDashboard({ config, cliPath: process.argv[1] ?? `${options.root}/bin/invariant-web.mjs` });
    dashboard = connectDashboard(config.dataDir);
  }
  const directory = config.positionals[0] ?? null;
  const demo = await dashboard.api.demo.start.mutate({
    task: "calendar",
    scripted: config.scripted,
    directory: directory === null ? null : (await import("node:path")).resolve(directory),
  });
  say(
    `${demo.reopened ? "Reopened" : "Started"} the demo study${demo.scripted ? " on the scripted model" : ""} (project in ${demo.directory}).`,
  );
  const study = await follow(dashboard, demo.studyId);
  const url = `${dashboard.url}/studies/${demo.studyId}`;
  const verdicts = study.trials.map((trial) =>
    trial.verdict ? `${trial.verdict.passed}/${trial.verdict.total}` : null,
  );
  const summary = { studyId: demo.studyId, projectId: demo.projectId, url, state: study.state, verdicts };
  if (config.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else process.stdout.write(`${url}\n`);
  if (!child) return study.state === "done" ? 0 : 1;
  say("The dashboard keeps running for you to look at the study; Ctrl-C stops it.");
  const running = child;
  const stop = () => running.kill("SIGTERM");
  process.once("SIGINT", stop).once("SIGTERM", stop);
  return new Promise((resolve) => running.once("exit", (code) => resolve(code ?? 0)));
}
