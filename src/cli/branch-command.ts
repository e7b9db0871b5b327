import { UsageError } from "./usage-error";
import { branchLine, branchOutput } from "./branch-output";
import { onePositional, resolveProject, runWorkflow, usageFailure, type WorkflowOptions } from "./workflow-cli";

/**
 * `invariant-web branch create --trial T [--push REMOTE] | list --project P|--last [--trial T] | remove BRANCH`:
 * Apply as a branch (docs/review-and-apply.md) through the running dashboard, which runs git on the project.
 */
const CREATE_EXAMPLE = "invariant-web branch create --trial TRIAL [--push origin]";

export function runBranchCommand(options: WorkflowOptions): Promise<number> {
  const { config } = options;
  const action = config.positionals[0];
  if (action === "create")
    return runWorkflow(options, "branch create", async (context) => {
      const [trialId, ...more] = config.workflow.trials;
      if (!trialId || more.length > 0) throw new UsageError(`name one trial, e.g. ${CREATE_EXAMPLE}`);
      const made = await (await context.api()).branches.create.mutate({ trialId, remote: config.workflow.push });
      const { branch, push } = made;
      const lines = [
        `Created ${branch.name} at ${branch.commit} (${made.files} file(s) on ${branch.baseCommit.slice(0, 12)}).`,
      ];
      if (push)
        lines.push(
          push.ok
            ? `Pushed to ${push.remote}.`
            : `The push to ${push.remote} failed; the branch is here:\n${push.output}`,
        );
      return {
        data: { branch: branchOutput(branch), files: made.files, push },
        human: `${lines.join("\n")}\n`,
        ...(push && !push.ok ? { exit: "failure" as const } : {}),
      };
    });
  if (action === "list")
    return runWorkflow(options, "branch list", async (context) => {
      const project = await resolveProject(context, {
        ref: config.project,
        example: "invariant-web branch list --project my-app [--trial TRIAL]",
      });
      const trialId = config.workflow.trials[0];
      const branches = await (
        await context.api()
      ).branches.list.query({
        projectId: project.id,
        ...(trialId ? { trialId } : {}),
      });
      return {
        data: { branches: branches.map(branchOutput) },
        human: branches.length
          ? `${branches.map(branchLine).join("\n")}\n`
          : "No branches made from this project's trials yet.\n",
      };
    });
  if (action === "remove")
    return runWorkflow(options, "branch remove", async (context) => {
      const branchId = onePositional(config, "branch", "invariant-web branch remove BRANCH");
      if (!branchId)
        throw new UsageError(
          "name a branch by its id (invariant-web branch list shows it), e.g. invariant-web branch remove BRANCH",
        );
      const branch = await (await context.api()).branches.remove.mutate({ branchId });
      return {
        data: { branch: branchOutput(branch) },
        human: `Removed ${branch.name} (it was at ${branch.commit.slice(0, 12)}).\n`,
      };
    });
  return usageFailure(options, "branch", `use "create", "list" or "remove", e.g. ${CREATE_EXAMPLE}`);
}
