import { LABEL } from "../runtime/container-spec";
import type { AgentRunDeps, ParsedAgentRunInput } from "./agent-run";

/** Commits the finished container to an image when the input asks; a failed commit is reported, not thrown. */
export async function commitIfAsked(options: {
  deps: AgentRunDeps;
  input: ParsedAgentRunInput;
  containerId: string;
  overDisk: boolean; // a container past its disk budget is not kept: its image would hold all it wrote
}): Promise<{ committedImageId: string | null; commitError: string | null }> {
  const { input } = options;
  if (!input.commit || options.overDisk) return { committedImageId: null, commitError: null };
  try {
    const committedImageId = await options.deps.runtime.commitContainer(options.containerId, {
      ...input.commit,
      labels: { [LABEL.project]: input.projectId, [LABEL.run]: input.runId },
    });
    return { committedImageId, commitError: null };
  } catch (error) {
    return {
      committedImageId: null,
      commitError: `Could not keep the agent's container as an image: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
