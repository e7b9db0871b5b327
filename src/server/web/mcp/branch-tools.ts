import {
  branchCreateInputSchema,
  branchListInputSchema,
  branchPreviewInputSchema,
  branchRemoveInputSchema,
} from "../../../shared/branch-schemas";
import { defineTool } from "./mcp-tool";

/** branch_preview, branch_create, branch_list, branch_remove: a trial's result as a git branch. */

export const branchPreview = defineTool({
  name: "branch_preview",
  title: "Preview a result branch",
  description:
    "What Apply as a branch would make for a finished trial of a git project: the branch's name, its base commit (the snapshot's), the remotes it could be pushed to, and why it cannot be made now (problem), if so.",
  access: "read",
  input: branchPreviewInputSchema,
  run: async (input, { backend }) => ({ data: { preview: await backend.api.branches.preview.query(input) } }),
});

export const branchCreate = defineTool({
  name: "branch_create",
  title: "Apply as a branch",
  description:
    "Creates invariant/<study>-<choice>.<repeat> from the snapshot's commit with one commit of the trial's changes, without touching the project's working tree, index or current branch; with `remote`, pushes it there.",
  access: "write",
  input: branchCreateInputSchema,
  run: async (input, { backend }) => {
    const created = await backend.api.branches.create.mutate(input);
    const push = created.push ? ` Push to ${created.push.remote}: ${created.push.ok ? "done" : "failed"}.` : "";
    return {
      data: created,
      text: `Created ${created.branch.name} at ${created.branch.commit} (${created.files} file(s)).${push}`,
    };
  },
});

export const branchList = defineTool({
  name: "branch_list",
  title: "List result branches",
  description: "The result branches made for a project (of one trial when trialId is given), newest first.",
  access: "read",
  input: branchListInputSchema,
  run: async (input, { backend }) => ({ data: { branches: await backend.api.branches.list.query(input) } }),
});

export const branchRemove = defineTool({
  name: "branch_remove",
  title: "Remove a result branch",
  description: "Deletes a result branch from the project's repository (refused when it moved since it was made).",
  access: "write",
  input: branchRemoveInputSchema,
  run: async (input, { backend }) => ({ data: { branch: await backend.api.branches.remove.mutate(input) } }),
});
