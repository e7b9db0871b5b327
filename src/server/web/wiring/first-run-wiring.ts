import os from "node:os";
import path from "node:path";
import { packageRoot } from "../../../lib/package-info";
import { createDemoService } from "../demo/demo-service";
import { DEFAULT_BASE_IMAGE, type EnvironmentService } from "../environments/environment-service";
import { createProjectService } from "../projects/project-service";
import type { ProjectQueries } from "../projects/projects.queries";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type { StudyService } from "../studies/study-service";
import { createSetupService } from "../setup/setup-service";
import type { ModelAccessSettings } from "../../core/credentials/model-access";

/** The web process's first-run services: the setup checklist (model access, the stored key) and the one-click demo. */
export function wireFirstRun(deps: {
  runtime: ContainerRuntime;
  dataDir: string;
  redisUrl: string;
  defaultBaseImage?: string;
  modelAccess?: ModelAccessSettings;
  projects: ProjectQueries;
  environments: EnvironmentService;
  studies: StudyService;
  host: { cpus: number; memoryBytes: number };
  log: (message: string) => void;
}) {
  const setup = createSetupService({
    runtime: deps.runtime,
    dataDir: deps.dataDir,
    redisUrl: deps.redisUrl,
    baseImage: deps.defaultBaseImage ?? DEFAULT_BASE_IMAGE,
    modelAccess: deps.modelAccess ?? { environmentKey: false, codexHome: path.join(os.homedir(), ".codex") },
    root: packageRoot(),
    log: deps.log,
  });
  const demo = createDemoService({
    dataDir: deps.dataDir,
    fixtureDir: path.join(packageRoot(), "fixtures", "calendar-project"),
    projects: createProjectService({ projects: deps.projects, dataDir: deps.dataDir, host: deps.host }),
    environments: deps.environments,
    studies: deps.studies,
    modelAccess: () => setup.modelAccess(),
  });
  return { setup, demo };
}
