import type { Role } from "../../../shared/roles";
import { apply, applyPlan, sessionsList } from "./apply-tools";
import { branchCreate, branchList, branchPreview, branchRemove } from "./branch-tools";
import { dependenciesInstall, environmentPrepare, environmentStatus } from "./environment-tools";
import { commentRemove, reviewComments, trialComment, trialFollowUp } from "./feedback-tools";
import type { McpTool } from "./mcp-tool";
import { projectAdd, projectsList } from "./project-tools";
import { studyChoose, studyCreate, studyList, studyShow, studyWait } from "./study-tools";
import { trialDiff, trialLog, trialShow, trialTests, trialTranscript } from "./trial-tools";

/** Every tool, in the order of the workflow (docs/automation.md "MCP server" lists them). */
export const MCP_TOOLS: readonly McpTool[] = [
  projectsList,
  projectAdd,
  environmentStatus,
  environmentPrepare,
  dependenciesInstall,
  studyList,
  studyCreate,
  studyShow,
  studyWait,
  trialShow,
  trialTests,
  trialDiff,
  trialTranscript,
  trialLog,
  reviewComments,
  trialComment,
  commentRemove,
  trialFollowUp,
  studyChoose,
  applyPlan,
  apply,
  branchPreview,
  branchCreate,
  branchList,
  branchRemove,
  sessionsList,
];

/** The tools a caller sees: all for the admin, the read-only ones for a viewer link. */
export function toolsFor(role: Role): McpTool[] {
  return MCP_TOOLS.filter((tool) => role === "admin" || tool.access === "read");
}
