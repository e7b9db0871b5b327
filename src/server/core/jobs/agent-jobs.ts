import { z } from "zod";
import { tokenUsageSchema } from "../../../shared/token-usage";
import { agentRunInputSchema } from "../agents/agent-run";
import type { JobDefinition } from "./job-catalog";

/** One agent run in a container (src/server/core/agents/agent-run.ts). The job id is the run id, so a run is never started twice. */
export const agentRunJob = {
  name: "agent.run",
  schema: agentRunInputSchema,
  result: z.object({
    outcome: z.discriminatedUnion("status", [
      z.object({
        status: z.literal("succeeded"),
        threadId: z.string().nullable(),
        finalMessage: z.string().nullable(),
      }),
      z.object({ status: z.literal("failed"), threadId: z.string().nullable(), reason: z.string() }),
      z.object({ status: z.literal("stopped"), threadId: z.string().nullable(), reason: z.string() }),
    ]),
    threadId: z.string().nullable(),
    meteredUsage: tokenUsageSchema.nullable(),
    reportedUsage: tokenUsageSchema,
    agentSeconds: z.number(),
    exitCode: z.number(),
    harnessVersion: z.string().nullable(),
    committedImageId: z.string().nullable(),
    commitError: z.string().nullable(),
  }),
} satisfies JobDefinition<z.ZodType, z.ZodType>;
