import { z } from "zod";
import type { ResultBranchView } from "../shared/branch-schemas";
import { isoDate } from "../shared/zod-fields";

/** What `branch create|list|remove --json` print as `data` (cli-schemas.ts has the envelope). */
export const resultBranchOutputSchema = z.object({
  id: z.string().min(1),
  projectId: z.string(),
  trialId: z.string().nullable(),
  studyId: z.string().nullable(),
  trialName: z.string().nullable(),
  /** The branch, e.g. invariant/fix-the-calendar-2.1. */
  name: z.string(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  baseCommit: z.string().regex(/^[0-9a-f]{40}$/),
  createdBy: z.string(),
  remote: z.string().nullable(),
  pushedAt: isoDate.nullable(),
  removedAt: isoDate.nullable(),
  createdAt: isoDate,
});

export const branchCliDataSchemas = {
  /** The branch made; `push` when --push was given (ok false: the branch exists, the push failed: exit 1). */
  "branch create": z.object({
    branch: resultBranchOutputSchema,
    files: z.int().nonnegative(),
    push: z.object({ remote: z.string(), ok: z.boolean(), output: z.string() }).nullable(),
  }),
  /** Newest first, removed ones too (removedAt set). */
  "branch list": z.object({ branches: z.array(resultBranchOutputSchema) }),
  "branch remove": z.object({ branch: resultBranchOutputSchema }),
} as const;

export function branchOutput(branch: ResultBranchView): z.infer<typeof resultBranchOutputSchema> {
  const { studyTitle: _title, ...rest } = branch;
  return rest;
}

export function branchLine(branch: ResultBranchView): string {
  const state = branch.removedAt ? "removed" : branch.pushedAt ? `pushed to ${branch.remote}` : "local";
  return `${branch.id}  ${branch.name}  ${branch.commit.slice(0, 12)} on ${branch.baseCommit.slice(0, 12)}  ${branch.trialName ?? "(trial gone)"}  ${state}`;
}
