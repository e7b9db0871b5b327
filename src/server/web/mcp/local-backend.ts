import { createTRPCClient, unstable_localLink } from "@trpc/client";
import { isAppError } from "../../core/errors/app-error";
import { CliRefusal } from "../../../shared/automation-errors";
import type { Identity } from "../../../shared/roles";
import { appRouter, type AppRouter } from "../trpc/app-router";
import type { AppServices } from "../wiring/app-services";
import { MAX_PATCH_CHARS, type McpBackend } from "./mcp-backend";

/** The service's refusals as the CLI's (an internal error stays an error: a failure). */
async function refusing<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isAppError(error) && error.code !== "INTERNAL_SERVER_ERROR") throw new CliRefusal(error.message, error.code);
    throw error;
  }
}

/**
 * The tools' backend inside the dashboard (its /mcp endpoint): the same tRPC procedures, called in
 * process with the request's identity (role gate and error formatting included), and the download services.
 */
export function localBackend(options: { services: AppServices; identity: Identity }): McpBackend {
  const { services, identity } = options;
  const api = createTRPCClient<AppRouter>({
    links: [unstable_localLink({ router: appRouter, createContext: () => Promise.resolve({ identity, services }) })],
  });
  return {
    api,
    role: identity.role,
    dashboardUrl: services.publicUrl,
    report: ({ studyId, format }) => refusing(async () => (await services.studies.report({ studyId, format })).body),
    patch: (trialId) =>
      refusing(async () => {
        const download = await services.review.patch({ trialId });
        let text = "";
        for await (const chunk of download.chunks) {
          text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
          if (text.length > MAX_PATCH_CHARS) break; // the tool cuts it there anyway
        }
        return text;
      }),
  };
}
