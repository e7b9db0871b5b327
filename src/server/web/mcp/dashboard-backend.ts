import { createTRPCClient, httpLink } from "@trpc/client";
import { appErrorCodeOf } from "../../core/errors/app-error";
import { CliFailure, CliRefusal } from "../../../shared/automation-errors";
import type { AppRouter } from "../trpc/app-router";
import type { McpBackend } from "./mcp-backend";

/** A download's refusal (a JSON `{ error }` body and its status) as the CLI reports it. */
async function downloadText(response: Response, notFound: string): Promise<string> {
  const body = await response.text();
  if (response.ok) return body;
  if (response.status === 404) throw new CliRefusal(notFound);
  let message = body.slice(0, 300);
  try {
    const parsed = JSON.parse(body) as { error?: string | { message?: string } };
    message = (typeof parsed.error === "string" ? parsed.error : parsed.error?.message) ?? message;
  } catch {
    // not JSON: the text itself
  }
  const code = appErrorCodeOf(response.status);
  if (code) throw new CliRefusal(message, code);
  throw new CliFailure(`the dashboard answered ${response.status}: ${message}`);
}

/**
 * The tools' backend over HTTP, as every CLI command reaches the running dashboard: tRPC with the token
 * in `Authorization: Bearer`, and the download endpoints. The role is the dashboard's answer for that token.
 */
export async function connectDashboardBackend(options: { url: string; token: string }): Promise<McpBackend> {
  const headers = { authorization: `Bearer ${options.token}` };
  const api = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${options.url}/api/trpc`, headers })] });
  const get = (pathname: string) => fetch(`${options.url}${pathname}`, { headers });
  const { role } = await api.system.whoami.query();
  return {
    api,
    role,
    dashboardUrl: options.url,
    report: async ({ studyId, format }) =>
      downloadText(await get(`/api/studies/${encodeURIComponent(studyId)}/report.${format}`), `No study "${studyId}".`),
    patch: async (trialId) =>
      downloadText(
        await get(`/api/trials/${encodeURIComponent(trialId)}/patch`),
        `Trial ${trialId} has no changes to show yet.`,
      ),
  };
}
