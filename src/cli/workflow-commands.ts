import type { WorkflowOptions } from "./workflow-cli";

/**
 * The workflow command groups (`project`, `environment`, `dependencies`, `study`, `trial`), each a
 * module of its own, loaded on demand.
 */
export async function runWorkflowCommand(options: WorkflowOptions): Promise<number> {
  switch (options.config.command) {
    case "project":
      return (await import("./project-command")).runProjectCommand(options);
    case "environment":
      return (await import("./environment-command")).runEnvironmentCommand(options);
    case "dependencies":
      return (await import("./dependencies-command")).runDependenciesCommand(options);
    case "branch":
      return (await import("./branch-command")).runBranchCommand(options);
    case "study":
      return (await import("./study-command")).runStudyCommand(options);
    default:
      return (await import("./trial-command")).runTrialCommand(options);
  }
}
