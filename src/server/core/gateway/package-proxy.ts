import http from "node:http";
import type net from "node:net";
import { sendGatewayError } from "./gateway-error";
import type { RunRecord } from "./run-tokens";

/**
 * The one way a container in network mode `none` installs system packages: the model gateway, on the
 * same socket, is also a forward proxy for plain-HTTP GET and HEAD to Debian's and Ubuntu's package
 * mirrors, and to nothing else. A container's apt reaches it as `http_proxy` with its run token for a
 * password (`http://run:<token>@127.0.0.1:<bridge port>`), so only a live run may use it. No CONNECT (an
 * HTTPS tunnel could carry anything to the registry, an upload included), no other method, no other host
 * or port; the answer is the mirror's, streamed. Apt checks what it downloads against the signed
 * Release files of its keyring, so the proxy does not have to.
 */
export const DEFAULT_PACKAGE_HOSTS = [
  "deb.debian.org",
  "security.debian.org",
  "archive.ubuntu.com",
  "security.ubuntu.com",
  "ports.ubuntu.com",
] as const;

const FORWARDED_HEADERS = [
  "accept",
  "accept-encoding",
  "cache-control",
  "if-modified-since",
  "if-none-match",
  "if-range",
  "range",
  "user-agent",
];
const UPSTREAM_TIMEOUT_MS = 60_000;

export interface PackageProxyOptions {
  /** The run a token belongs to (null: none, or revoked). */
  lookup: (token: string) => RunRecord | null;
  /** Hosts (`name` or `name:port`) the proxy forwards to; DEFAULT_PACKAGE_HOSTS unless given. */
  hosts?: readonly string[];
  log: (line: string) => void;
}

/** A request in absolute form (`GET http://host/path`): a proxy request, not one for the model API. */
export function isProxyRequest(req: http.IncomingMessage): boolean {
  return /^http:\/\//i.test(req.url ?? "");
}

/** The run token in `Proxy-Authorization: Basic …` (any user name, the token as the password). */
export function proxyToken(req: http.IncomingMessage): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]{1,1024})$/.exec(req.headers["proxy-authorization"] ?? "");
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon >= 0 ? decoded.slice(colon + 1) : null;
}

function short(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** Streams the mirror's answer back; hop-by-hop headers and cookies stay behind. */
function forward(options: { req: http.IncomingMessage; res: http.ServerResponse; url: URL }): void {
  const { req, res, url } = options;
  const headers: http.OutgoingHttpHeaders = { host: url.host, connection: "close" };
  for (const name of FORWARDED_HEADERS) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  const upstream = http.request({
    host: url.hostname,
    port: url.port ? Number(url.port) : 80,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers,
    timeout: UPSTREAM_TIMEOUT_MS,
  });
  upstream.on("response", (answer) => {
    const kept: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers))
      if (!/^(connection|keep-alive|transfer-encoding|proxy-|set-cookie)/i.test(name)) kept[name] = value;
    res.writeHead(answer.statusCode ?? 502, kept);
    answer.pipe(res);
    answer.on("error", () => res.destroy());
  });
  upstream.on("timeout", () => upstream.destroy(new Error(`no answer within ${UPSTREAM_TIMEOUT_MS / 1000} s`)));
  upstream.on("error", (error) => {
    if (res.headersSent) return void res.destroy();
    sendGatewayError({
      res,
      status: 502,
      type: "package_proxy_upstream_unreachable",
      message: `The package proxy could not reach ${url.host}: ${short(error.message)}`,
    });
  });
  res.on("close", () => upstream.destroy());
  upstream.end();
}

/** CONNECT (an HTTPS tunnel) is never opened: it could carry anything, an upload included. */
function refuseTunnel(options: { req: http.IncomingMessage; socket: net.Socket; log: (line: string) => void }): void {
  const { req, socket } = options;
  options.log(`package proxy: refused a CONNECT to ${short(req.url ?? "")}`);
  const body = JSON.stringify({
    error: {
      type: "package_proxy_tunnel_refused",
      message:
        "In network mode none the package proxy opens no HTTPS tunnels; HTTPS registries (npm, PyPI) need network mode internet.",
    },
  });
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function createPackageProxy(options: PackageProxyOptions) {
  const hosts = new Set((options.hosts ?? DEFAULT_PACKAGE_HOSTS).map((host) => host.toLowerCase()));
  const allowed = (url: URL) => hosts.has(url.host.toLowerCase()) && url.protocol === "http:";

  function refuse(res: http.ServerResponse, status: number, type: string, message: string): void {
    options.log(`package proxy: refused (${type}): ${short(message)}`);
    if (status === 407) res.setHeader("proxy-authenticate", 'Basic realm="invariant package proxy"');
    sendGatewayError({ res, status, type, message });
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return refuse(res, 400, "package_proxy_bad_url", "The package proxy could not read that URL.");
    }
    const token = proxyToken(req);
    if (!token || !options.lookup(token))
      return refuse(
        res,
        407,
        "package_proxy_unauthenticated",
        "The package proxy needs a live run's token as the proxy password (http_proxy=http://run:$GW_TOKEN@127.0.0.1:8787).",
      );
    if (!allowed(url))
      return refuse(
        res,
        403,
        "package_proxy_host_refused",
        `In network mode none the package proxy reaches only the package mirrors ${[...hosts].join(", ")} over plain HTTP; ${short(url.host)} is not one of them. Switch the project to network mode internet for other hosts.`,
      );
    if (req.method !== "GET" && req.method !== "HEAD")
      return refuse(
        res,
        405,
        "package_proxy_method_refused",
        `The package proxy only downloads (GET, HEAD); ${short(req.method ?? "")} is refused.`,
      );
    forward({ req, res, url });
  }

  return {
    handle,
    refuseTunnel: (req: http.IncomingMessage, socket: net.Socket) => refuseTunnel({ req, socket, log: options.log }),
  };
}
