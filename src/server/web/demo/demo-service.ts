import fs from "node:fs";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import type { EnvironmentService } from "../environments/environment-service";
import type { ProjectService } from "../projects/project-service";
import type { StudyService } from "../studies/study-service";
import type { ModelAccessView } from "../../../shared/setup-schemas";
import { DEMO_PROJECT_NAME, DEMO_TITLE_PREFIX, demoStudyInput } from "./demo-study";

export interface DemoView {
  projectId: string;
  studyId: string;
  /** The demo study existed already: it is reopened, not run again. */
  reopened: boolean;
  /** It runs on the bundled scripted model (no model access, or asked for). */
  scripted: boolean;
  directory: string;
}

export interface DemoServiceDeps {
  dataDir: string;
  /** The package's fixtures/calendar-project, copied for the demo. */
  fixtureDir: string;
  projects: Pick<ProjectService, "add" | "list">;
  environments: Pick<EnvironmentService, "overview" | "prepare">;
  studies: Pick<StudyService, "create" | "list">;
  modelAccess: () => ModelAccessView;
  /** How long to wait for the demo environment (default 10 minutes). */
  environmentTimeoutMs?: number;
  pollMs?: number;
}

/** Projects may not live inside the data dir: the demo's default folder sits beside it. */
export function defaultDemoDirectory(dataDir: string): string {
  return path.join(`${path.resolve(dataDir)}-demo`, "calendar");
}

function copyFixture(deps: DemoServiceDeps, directory: string): void {
  if (fs.existsSync(directory) && fs.readdirSync(directory).length > 0) {
    if (fs.existsSync(path.join(directory, "test", "calendar.test.js"))) return; // a copy from an earlier demo
    throw new AppError({
      code: "CONFLICT",
      field: "directory",
      message: `${directory} is not empty and is not the demo's calendar project; choose an empty or new folder.`,
    });
  }
  fs.mkdirSync(directory, { recursive: true });
  fs.cpSync(deps.fixtureDir, directory, { recursive: true });
}

/** Waits until the project's active environment version is ready (building it when there is none). */
async function readyEnvironment(deps: DemoServiceDeps, projectId: string): Promise<void> {
  const deadline = Date.now() + (deps.environmentTimeoutMs ?? 600_000);
  let prepared = false;
  for (;;) {
    const { versions } = await deps.environments.overview(projectId);
    if (versions.some((v) => v.active && v.status === "ready")) return;
    const latest = versions[0];
    if (latest?.status === "failed" && prepared)
      throw new AppError({
        code: "PRECONDITION_FAILED",
        message: `The demo's environment could not be built: ${latest.error ?? "see its log on the project page"}.`,
      });
    if (!versions.some((v) => v.status === "building") && !prepared) {
      await deps.environments.prepare(projectId);
      prepared = true;
    }
    if (Date.now() > deadline)
      throw new AppError({
        code: "PRECONDITION_FAILED",
        message:
          "The demo's environment is still building; open the project page to follow it, then try the demo again.",
      });
    await new Promise((resolve) => setTimeout(resolve, deps.pollMs ?? 500));
  }
}

/**
 * The one-click demo: the calendar task copied to a folder of its own, added as a project, its
 * environment prepared, and a study of three efforts with the 23 shared checks (preflight at once).
 * Without model access (or when asked) it runs on the bundled scripted model. Running it again
 * reopens the same study. One demo setup at a time.
 */
export function createDemoService(deps: DemoServiceDeps) {
  let pending: Promise<DemoView> | null = null;

  async function run(input: { scripted: boolean; directory: string | null }, by: string): Promise<DemoView> {
    const directory = path.resolve(input.directory ?? defaultDemoDirectory(deps.dataDir));
    const known = (await deps.projects.list()).find((p) => p.hostPath === directory);
    if (!known) copyFixture(deps, directory);
    const project = known ?? (await deps.projects.add({ hostPath: directory, name: DEMO_PROJECT_NAME }));
    const existing = (await deps.studies.list({ projectId: project.id })).find((s) =>
      s.title.startsWith(DEMO_TITLE_PREFIX),
    );
    if (existing)
      return {
        projectId: project.id,
        studyId: existing.id,
        reopened: true,
        scripted: existing.title.includes("(scripted model)"),
        directory,
      };
    const scripted = input.scripted || deps.modelAccess().source === "none";
    await readyEnvironment(deps, project.id);
    const study = await deps.studies.create(demoStudyInput({ projectId: project.id, scripted }), by);
    return { projectId: project.id, studyId: study.id, reopened: false, scripted, directory };
  }

  return {
    start(input: { scripted?: boolean; directory?: string | null }, by: string): Promise<DemoView> {
      pending ??= run({ scripted: input.scripted ?? false, directory: input.directory ?? null }, by).finally(() => {
        pending = null;
      });
      return pending;
    },
  };
}
export type DemoService = ReturnType<typeof createDemoService>;
