import { appErrorCodeOf } from "../server/core/errors/app-error";
import { CliRefusal, type WorkflowContext } from "./workflow-cli";

/** A download from the dashboard (a report, a patch) as text; its refusals become CliRefusal. */
export async function downloadText(options: {
  context: WorkflowContext;
  pathname: string;
  /** What to say for a 404. */
  notFound: string;
}): Promise<string> {
  const response = await (await options.context.dashboard()).fetch(options.pathname);
  const body = await response.text();
  if (response.ok) return body;
  if (response.status === 404) throw new CliRefusal(options.notFound);
  let message = body.slice(0, 300);
  try {
    message = (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? message;
  } catch {
    // not JSON: the text itself
  }
  const code = appErrorCodeOf(response.status);
  if (code) throw new CliRefusal(message, code);
  throw new Error(`the dashboard answered ${response.status}: ${message}`);
}
