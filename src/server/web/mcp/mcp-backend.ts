import type { createTRPCClient } from "@trpc/client";
import type { Role } from "../../../shared/roles";
import type { AppRouter } from "../trpc/app-router";

/** The dashboard's API as a tRPC client: over HTTP (`invariant-web mcp`) or in process (the dashboard's /mcp). */
export type DashboardApi = ReturnType<typeof createTRPCClient<AppRouter>>;

/** The largest patch a tool answers with; a bigger one is cut (the download endpoint has it whole). */
export const MAX_PATCH_CHARS = 512 * 1024;

/**
 * What the MCP tools run on, whichever the transport: the tRPC API with the caller's identity, the
 * caller's role (viewers get the read-only tools), and the two downloads tools read (a study's report,
 * a trial's patch). Stdio and HTTP differ only in how this is built (dashboard-backend.ts, local-backend.ts).
 */
export interface McpBackend {
  api: DashboardApi;
  role: Role;
  /** Where people open the dashboard (links in answers). */
  dashboardUrl: string;
  report(options: { studyId: string; format: "md" | "json" }): Promise<string>;
  /** A trial's changes as one git patch (text). */
  patch(trialId: string): Promise<string>;
}
