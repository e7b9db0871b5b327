import { z } from "zod";
import { applyTrialInputSchema, applyTrialRunInputSchema } from "../../../shared/snapshot-schemas";
import { defineTool } from "./mcp-tool";

/** apply_plan (read), apply (write, only with the plan's hash), sessions_list. */

export const applyPlan = defineTool({
  name: "apply_plan",
  title: "Plan an apply",
  description:
    "The plan that would apply a finished trial's changes to its project directory: each step (add, modify, delete), the conflicts (the project changed since the snapshot), and the plan's hash that apply needs. Writes nothing.",
  access: "read",
  input: applyTrialInputSchema,
  run: async (input, { backend }) => {
    const plan = await backend.api.applies.previewTrial.query(input);
    const conflicted = plan.conflicts.length > 0;
    return {
      data: { plan },
      text: `Plan ${plan.planHash}: ${plan.steps.length} step(s), ${plan.conflicts.length} conflict(s).${conflicted ? " It would be refused as a whole." : " Apply it with apply and this planHash."}`,
    };
  },
});

export const apply = defineTool({
  name: "apply",
  title: "Apply a trial's changes",
  description:
    "Applies a trial's changes to its project directory, all or nothing, exactly as the plan from apply_plan with this planHash says (refused when the project changed since). Undo it on the dashboard while nothing changed since.",
  access: "write",
  input: applyTrialRunInputSchema,
  run: async (input, { backend }) => {
    const record = await backend.api.applies.runTrial.mutate(input);
    const text = `Apply ${record.outcome} (record ${record.id}): ${record.files.length} file(s).`;
    if (record.outcome === "applied") return { data: { result: record }, text };
    if (record.outcome === "refused")
      return {
        data: { result: record },
        text,
        refused: {
          message: `Refused; nothing was written: ${record.conflicts.map((c) => c.message).join(" ") || "the plan changed"}`,
          code: "CONFLICT",
        },
      };
    throw new Error(`The apply ${record.outcome}: ${record.error ?? "unknown error"} (record ${record.id}).`);
  },
});

export const sessionsList = defineTool({
  name: "sessions_list",
  title: "List sessions",
  description:
    "The terminal sessions (an agent's TUI or a shell in a project's environment), of one project when projectId is given.",
  access: "read",
  input: z.strictObject({ projectId: z.string().min(1).max(100).optional() }),
  run: async (input, { backend }) => ({ data: { sessions: await backend.api.sessions.list.query(input) } }),
});
