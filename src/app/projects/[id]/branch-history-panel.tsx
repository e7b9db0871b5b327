"use client";
import { Panel } from "../../_components/ui";
import { BranchList } from "../../studies/[id]/branch-list";

/** The branches Apply as a branch made in this project's repository, beside the apply history. */
export function BranchHistoryPanel({ projectId, isAdmin }: { projectId: string; isAdmin: boolean }) {
  return (
    <div id="result-branches" className="mb-6 scroll-mt-4">
      <Panel title="Result branches">
        <BranchList
          projectId={projectId}
          isAdmin={isAdmin}
          empty="No branches yet. For a project that is a git repository, a trial's changes can be made a branch from its panel on the study page (“Apply as a branch…”): one commit on the study's commit, without touching your working tree."
        />
      </Panel>
    </div>
  );
}
