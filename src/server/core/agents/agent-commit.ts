import { LABEL } from "../runtime/container-spec";
import { DiskBudgetExceededError, type DiskOverrun } from "../runtime/disk-budget";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { messageOf } from "../../../shared/error-message";

/** Commits the finished container to an image when the input asks; a failed commit is reported, not thrown. */
export async function commitIfAsked(options: {
  deps: { runtime: Pick<ContainerRuntime, "commitContainer"> };
  input: { projectId: string; runId: string; commit: { repository: string; tag: string } | null };
  containerId: string;
  overDisk: boolean; // a container past its disk budget is not kept: its image would hold all it wrote
}): Promise<{ committedImageId: string | null; commitError: string | null; overDisk?: DiskOverrun }> {
  const { input } = options;
  if (!input.commit || options.overDisk) return { committedImageId: null, commitError: null };
  try {
    const committedImageId = await options.deps.runtime.commitContainer(options.containerId, {
      ...input.commit,
      labels: { [LABEL.project]: input.projectId, [LABEL.run]: input.runId },
    });
    return { committedImageId, commitError: null };
  } catch (error) {
    // measured once more before the commit: past its budget, it is stopped for that reason, not kept
    if (error instanceof DiskBudgetExceededError)
      return { committedImageId: null, commitError: null, overDisk: error.overrun };
    return {
      committedImageId: null,
      commitError: `Could not keep the agent's container as an image: ${messageOf(error)}`,
    };
  }
}
