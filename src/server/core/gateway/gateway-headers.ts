import type http from "node:http";

/** Which headers the model gateway passes between a container and the upstream, and which it drops. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
const DROP_REQUEST = new Set([
  ...HOP_BY_HOP,
  "host",
  "content-length",
  "expect",
  "authorization",
  "api-key",
  "x-api-key",
  "x-goog-api-key",
  "accept-encoding",
  "cookie",
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  // account headers are the gateway's to set (a ChatGPT sign-in), never a container's
  "chatgpt-account-id",
]);
const DROP_RESPONSE = new Set([...HOP_BY_HOP, "set-cookie", "openai-organization"]);

function connectionTokens(value: string | string[] | undefined): string[] {
  return String(value ?? "")
    .toLowerCase()
    .split(",")
    .map((t) => t.trim());
}

/**
 * The client request's headers as lines for the upstream, without hop-by-hop and dropped ones (every
 * auth header a client may put its run token in), with the real credential's lines (`auth`, in the
 * API's own header: apis/provider-auth.ts; none for the scripted model) and an uncompressed answer asked for.
 */
export function upstreamRequestHeaders(options: {
  headers: http.IncomingHttpHeaders;
  auth: [string, string][];
}): [string, string][] {
  const { headers } = options;
  const listed = connectionTokens(headers.connection);
  const lines: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROP_REQUEST.has(name) || listed.includes(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push([name, one]);
  }
  lines.push(...options.auth);
  lines.push(["accept-encoding", "identity"]);
  return lines;
}

/** The upstream's response header lines for the client, without hop-by-hop and dropped ones. */
export function clientResponseHeaders(lines: [string, string][]): http.OutgoingHttpHeaders {
  const listed = connectionTokens(lines.filter(([name]) => name === "connection").map(([, value]) => value));
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of lines) {
    if (DROP_RESPONSE.has(name) || listed.includes(name)) continue;
    const previous = out[name];
    out[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return out;
}

/** Whether the upstream answers with an event stream (metered as it passes; any other answer is read whole first). */
export function isEventStream(lines: [string, string][]): boolean {
  return lines.some(([name, value]) => name === "content-type" && value.includes("text/event-stream"));
}
