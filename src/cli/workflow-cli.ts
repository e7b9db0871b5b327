import path from "node:path";
import type { ProjectView } from "../shared/project-schemas";
import type { StudySummaryView } from "../shared/study-schemas";
import {
  CLI_OUTPUT_VERSION,
  CLI_SCHEMA_ID,
  EXIT,
  type CliCommandName,
  type CliData,
  type CliError,
  type ExitKind,
} from "./cli-schemas";
import { type CliConfig } from "./config";
import { UsageError } from "./usage-error";
import type { connectDashboard } from "./dashboard-client";
import { classifyError, CliFailure, CliInputError, CliRefusal, CliTimeout } from "../shared/automation-errors";

// the error kinds live in src/shared (the MCP server classifies errors the same way); the CLI's modules import them from here
export { classifyError, CliFailure, CliInputError, CliRefusal, CliTimeout };

/**
 * What the workflow commands (project, environment, study, trial, apply --trial) share: the connection to
 * the running dashboard (the web process is the only database writer: database-access.ts), `--last`,
 * the `--json` envelope (cli-schemas.ts) and the exit codes. Each command group is a thin module over
 * tRPC calls on top of this one.
 */
export type Dashboard = ReturnType<typeof connectDashboard>;
export type DashboardApi = Dashboard["api"];

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (a live progress line rewrites itself there). */
  isTTY: boolean;
}

export interface WorkflowOptions {
  config: CliConfig;
  io?: Partial<CliIo>;
  /** How to reach the running dashboard (tests pass their own). */
  connect?: (dataDir: string) => Dashboard | Promise<Dashboard>;
  /** How often `study wait` / `study follow` look at the study (default 1 s). */
  pollMs?: number;
}

export interface WorkflowContext {
  config: CliConfig;
  io: CliIo;
  json: boolean;
  pollMs: number;
  /** The running dashboard, connected on first use. */
  dashboard(): Promise<Dashboard>;
  api(): Promise<DashboardApi>;
  /** Prints one JSON envelope line (for streams such as `study follow --json`). */
  emitLine<C extends CliCommandName>(command: C, data: CliData<C>, exitCode?: number): void;
}

export interface WorkflowResult<C extends CliCommandName> {
  data: CliData<C>;
  /** What a person reads (stdout); empty for nothing. */
  human: string;
  /** Exit kind when the command succeeded in talking but the outcome is not a success (default ok). */
  exit?: ExitKind;
  /** Already printed (streams): print nothing more on success. */
  printed?: boolean;
}

async function defaultConnect(dataDir: string): Promise<Dashboard> {
  const [{ runningLauncher }, { connectDashboard }] = await Promise.all([
    import("./database-access"),
    import("./dashboard-client"),
  ]);
  if (runningLauncher(dataDir) === null)
    throw new CliFailure(
      `invariant-web is not running for ${dataDir}. Start it first (invariant-web --data-dir ${dataDir}), then run this command again.`,
    );
  return connectDashboard(dataDir);
}

function envelope(command: string, exitCode: number, body: { data: unknown } | { error: CliError }): string {
  return JSON.stringify({
    schema: CLI_SCHEMA_ID,
    version: CLI_OUTPUT_VERSION,
    command,
    ok: exitCode === 0,
    exitCode,
    ...body,
  });
}

/** Runs one workflow command: prints its result (human or the JSON envelope) and returns the exit code. */
export async function runWorkflow<C extends CliCommandName>(
  options: WorkflowOptions,
  command: C,
  body: (context: WorkflowContext) => Promise<WorkflowResult<C>>,
): Promise<number> {
  const io = ioOf(options);
  const { config } = options;
  let connected: Dashboard | null = null;
  const context: WorkflowContext = {
    config,
    io,
    json: config.json,
    pollMs: options.pollMs ?? 1000,
    async dashboard() {
      connected ??= await (options.connect ?? defaultConnect)(config.dataDir);
      return connected;
    },
    async api() {
      return (await context.dashboard()).api;
    },
    emitLine(name, data, exitCode = 0) {
      io.out(`${envelope(name, exitCode, { data })}\n`);
    },
  };
  try {
    const result = await body(context);
    const exitCode = EXIT[result.exit ?? "ok"];
    if (!result.printed) {
      if (config.json) io.out(`${envelope(command, exitCode, { data: result.data })}\n`);
      else if (result.human) io.out(result.human.endsWith("\n") ? result.human : `${result.human}\n`);
    }
    return exitCode;
  } catch (error) {
    return printFailure({ io, json: config.json, command, error });
  }
}

function ioOf(options: WorkflowOptions): CliIo {
  return {
    out: options.io?.out ?? ((text) => process.stdout.write(text)),
    err: options.io?.err ?? ((text) => process.stderr.write(text)),
    isTTY: options.io?.isTTY ?? Boolean(process.stderr.isTTY),
  };
}

/** Prints an error (stderr; with --json also the failure envelope on stdout) and returns its exit code. */
function printFailure(options: { io: CliIo; json: boolean; command: string; error: unknown }): number {
  const { io } = options;
  const problem = classifyError(options.error);
  const details = problem.fieldErrors
    ? Object.entries(problem.fieldErrors)
        .map(([field, messages]) => `\n  ${field || "(the file)"}: ${messages.join(" ")}`)
        .join("")
    : "";
  io.err(`invariant-web ${options.command}: ${problem.message}${details}\n`);
  if (options.json) io.out(`${envelope(options.command, problem.exitCode, { error: problem })}\n`);
  return problem.exitCode;
}

/** A command group called with an unknown or missing action: a usage error (exit 2). */
export function usageFailure(options: WorkflowOptions, group: string, message: string): Promise<number> {
  return Promise.resolve(
    printFailure({ io: ioOf(options), json: options.config.json, command: group, error: new UsageError(message) }),
  );
}

/** The one positional a command takes (e.g. a study id), or null; more than one is a usage error. */
export function onePositional(config: CliConfig, what: string, example: string): string | null {
  const rest = config.positionals.slice(1);
  if (rest.length > 1) throw new UsageError(`name one ${what}, e.g. ${example}`);
  return rest[0] ?? null;
}

/** The newest first, by creation time. */
function newestProject(projects: ProjectView[]): ProjectView | null {
  return [...projects].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0] ?? null;
}

/**
 * A project named by id, name or directory (`--project` or the positional), or the most recent one
 * with `--last`.
 */
export async function resolveProject(
  context: WorkflowContext,
  options: { ref: string | null; example: string },
): Promise<ProjectView> {
  const { ref } = options;
  if (!ref && !context.config.workflow.last)
    throw new UsageError(`name a project (its id, name or directory) or pass --last, e.g. ${options.example}`);
  const projects = await (await context.api()).projects.list.query();
  if (!ref) {
    const newest = newestProject(projects);
    if (!newest) throw new CliRefusal("There is no project yet: add one with invariant-web project add DIR.");
    return newest;
  }
  const absolute = path.resolve(ref);
  const found = projects.find((p) => p.id === ref || p.name === ref || p.hostPath === ref || p.hostPath === absolute);
  if (!found)
    throw new CliRefusal(
      `No project "${ref}". Known projects: ${projects.map((p) => p.name).join(", ") || "none (add one with invariant-web project add DIR)"}.`,
    );
  return found;
}

/**
 * A study by id (the positional), or with `--last` the most recent one (of `--project` when given).
 */
export async function resolveStudyId(
  context: WorkflowContext,
  options: { ref: string | null; example: string },
): Promise<string> {
  if (options.ref) return options.ref;
  if (!context.config.workflow.last)
    throw new UsageError(`name a study (its id) or pass --last, e.g. ${options.example}`);
  const api = await context.api();
  const projectId = context.config.project
    ? (await resolveProject(context, { ref: context.config.project, example: options.example })).id
    : undefined;
  const studies: StudySummaryView[] = await api.studies.list.query(projectId ? { projectId } : {});
  const newest = studies[0];
  if (!newest) throw new CliRefusal("There is no study yet: create one with invariant-web study create --file FILE.");
  return newest.id;
}
