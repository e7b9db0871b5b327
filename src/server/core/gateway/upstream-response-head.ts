/** Reading an HTTP/1.x response head from the model gateway's upstream. */
export interface UpstreamResponseHead {
  status: number;
  /** Header lines as received (names lower-cased), in order. */
  headers: [string, string][];
  framing: "chunked" | "length" | "close" | "none";
}

export type ParsedResponseHead = UpstreamResponseHead & { keepAlive: boolean };

export class UpstreamProtocolError extends Error {}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/;

function headerLinesOf(lines: string[]): [string, string][] {
  const headers: [string, string][] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name))
      throw new UpstreamProtocolError(
        `the upstream sent a malformed header line (${JSON.stringify(line.slice(0, 40))})`,
      );
    headers.push([name.toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return headers;
}

function framingOf(options: {
  method: string;
  status: number;
  headers: [string, string][];
}): UpstreamResponseHead["framing"] {
  const { status } = options;
  const values = (name: string) => options.headers.filter(([n]) => n === name).map(([, v]) => v);
  const transferEncoding = values("transfer-encoding");
  const contentLength = values("content-length");
  if (options.method === "HEAD" || status === 204 || status === 304) return "none";
  if (transferEncoding.length > 0) {
    if (transferEncoding.join(",").trim().toLowerCase() !== "chunked")
      throw new UpstreamProtocolError(
        `the upstream used a transfer encoding the gateway does not relay (${transferEncoding.join(", ")})`,
      );
    return "chunked";
  }
  if (contentLength.length > 0) {
    if (!contentLength.every((v) => /^\d{1,15}$/.test(v) && v === contentLength[0]))
      throw new UpstreamProtocolError("the upstream sent an invalid content-length");
    return Number(contentLength[0]) === 0 ? "none" : "length";
  }
  return "close";
}

/** The head's text (without its blank line); null for an interim (1xx) response, whose real one follows. */
export function parseResponseHead(options: { text: string; method: string }): ParsedResponseHead | null {
  const lines = options.text.split("\r\n");
  const status = STATUS_LINE.exec(lines[0] ?? "");
  if (!status)
    throw new UpstreamProtocolError(
      `the upstream answered with something other than HTTP/1.x (${JSON.stringify((lines[0] ?? "").slice(0, 40))})`,
    );
  const code = Number(status[2]);
  const headers = headerLinesOf(lines.slice(1));
  if (code >= 100 && code < 200) {
    if (code === 101) throw new UpstreamProtocolError("the upstream tried to switch protocols");
    return null; // an interim response: the real one follows
  }
  const connection = headers
    .filter(([n]) => n === "connection")
    .map(([, v]) => v)
    .join(",")
    .toLowerCase();
  const keepAlive = status[1] === "1" && !/(^|,)\s*close\s*(,|$)/.test(connection);
  const framing = framingOf({ method: options.method, status: code, headers });
  return { status: code, headers, framing, keepAlive: keepAlive && framing !== "close" };
}
