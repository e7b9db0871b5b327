import { z } from "zod";
import { addProjectInputSchema } from "../../../shared/project-schemas";
import { defineTool } from "./mcp-tool";

/** projects_list, project_add. */

export const projectsList = defineTool({
  name: "projects_list",
  title: "List projects",
  description:
    "The projects of this invariant-web dashboard: id, name, directory and settings. Other tools name a project by its id, name or directory.",
  access: "read",
  input: z.strictObject({}),
  run: async (_input, { backend }) => {
    const projects = await backend.api.projects.list.query();
    return {
      data: { projects },
      text:
        projects.length === 0
          ? "No projects yet: add one with project_add."
          : projects.map((p) => `${p.id}\t${p.name}\t${p.hostPath}`).join("\n"),
    };
  },
});

export const projectAdd = defineTool({
  name: "project_add",
  title: "Add a project",
  description:
    "Adds a directory on the dashboard's host as a project (then prepare its environment with environment_prepare).",
  access: "write",
  input: addProjectInputSchema,
  run: async (input, { backend }) => {
    const project = await backend.api.projects.add.mutate(input);
    return { data: { project }, text: `Added project ${project.id} "${project.name}" at ${project.hostPath}.` };
  },
});
