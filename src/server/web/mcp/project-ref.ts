import type { ProjectView } from "../../../shared/project-schemas";
import { CliRefusal } from "../../../shared/automation-errors";
import type { DashboardApi } from "./mcp-backend";

/** A project named by id, name or directory, as `--project P` and a study file's "project" name one. */
export async function resolveProject(api: DashboardApi, ref: string): Promise<ProjectView> {
  const projects = await api.projects.list.query();
  const found = projects.find((p) => p.id === ref || p.name === ref || p.hostPath === ref);
  if (!found)
    throw new CliRefusal(
      `No project "${ref}". Known projects: ${projects.map((p) => p.name).join(", ") || "none (add one with project_add)"}.`,
      "NOT_FOUND",
      "project",
    );
  return found;
}
