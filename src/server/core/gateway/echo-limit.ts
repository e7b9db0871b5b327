/**
 * How much of a request's own text (a tool's `server_url`, a model name, a path, a type) the model
 * gateway echoes into a refusal, and so into its logs, the run's last error and the trial's reason:
 * a request is the agent's, and one 20 MiB field must not become a 20 MiB log line.
 */
export const ECHO_LIMIT = 200;

/** `text` as it is when short, else its first `limit` characters and an ellipsis saying how long it was. */
export function clip(text: string, limit = ECHO_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… (${text.length.toLocaleString("en-US")} characters)`;
}
