import { z } from "zod";
import { agentRunInputSchema } from "../agents/agent-run";
import type { JobDefinition } from "./job-catalog";

const usage = z.object({
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  reasoningTokens: z.number(),
});

/** One agent run in a container (src/server/agents/agent-run.ts). The job id is the run id, so a run is never started twice. */
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
    meteredUsage: usage.nullable(),
    reportedUsage: usage,
    agentSeconds: z.number(),
    exitCode: z.number(),
    harnessVersion: z.string().nullable(),
    committedImageId: z.string().nullable(),
    commitError: z.string().nullable(),
  }),
} satisfies JobDefinition<z.ZodType, z.ZodType>;
