import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPackageProxy, isProxyRequest } from "./package-proxy";
import type { RunRecord } from "./run-tokens";

/**
 * The package proxy on real sockets: a stand-in mirror on loopback (allowed by name and port here, as
 * deb.debian.org is by default), and a host listener that must never be reached through it.
 */
let mirror: http.Server;
let secret: http.Server;
let proxy: http.Server;
let mirrorHost = "";
let secretHost = "";
let proxyPort = 0;
const secretHits: string[] = [];
const logs: string[] = [];

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  mirror = http.createServer((req, res) => {
    res.setHeader("set-cookie", "tracking=1");
    res.end(`mirror ${req.method} ${req.url} ${req.headers.host}`);
  });
  secret = http.createServer((req, res) => {
    secretHits.push(req.url ?? "");
    res.end("host secret");
  });
  mirrorHost = `127.0.0.1:${await listen(mirror)}`;
  secretHost = `127.0.0.1:${await listen(secret)}`;
  const packages = createPackageProxy({
    lookup: (token) => (token === "iwrun_live" ? ({ runId: "r1" } as RunRecord) : null),
    hosts: [mirrorHost],
    log: (line) => logs.push(line),
  });
  proxy = http.createServer((req, res) => {
    if (isProxyRequest(req)) return packages.handle(req, res);
    res.statusCode = 404;
    res.end("model api");
  });
  proxy.on("connect", (req, socket: net.Socket) => packages.refuseTunnel(req, socket));
  proxyPort = await listen(proxy);
});

afterAll(() => {
  for (const server of [mirror, secret, proxy]) server.close();
});

function viaProxy(options: { url: string; method?: string; token?: string | null }) {
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const token = options.token === undefined ? "iwrun_live" : options.token;
    const req = http.request({
      host: "127.0.0.1",
      port: proxyPort,
      method: options.method ?? "GET",
      path: options.url,
      headers: token ? { "proxy-authorization": `Basic ${Buffer.from(`run:${token}`).toString("base64")}` } : {},
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the package proxy", () => {
  it("forwards a download from an allowed mirror, without its cookies", async () => {
    const answer = await viaProxy({ url: `http://${mirrorHost}/debian/dists/bookworm/InRelease` });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(`mirror GET /debian/dists/bookworm/InRelease ${mirrorHost}`);
    expect(answer.headers["set-cookie"]).toBeUndefined();
  });

  it("refuses every other host, method, tunnel and a missing or dead token, and the host listener hears nothing", async () => {
    const other = await viaProxy({ url: `http://${secretHost}/steal` });
    expect(other.status).toBe(403);
    expect(other.body).toContain("is not one of them");
    const post = await viaProxy({ url: `http://${mirrorHost}/upload`, method: "POST" });
    expect(post.status).toBe(405);
    expect((await viaProxy({ url: `http://${mirrorHost}/x`, token: null })).status).toBe(407);
    expect((await viaProxy({ url: `http://${mirrorHost}/x`, token: "iwrun_dead" })).status).toBe(407);
    // the same host name in another scheme or port is another host
    expect((await viaProxy({ url: `http://${mirrorHost.replace(/:\d+$/, ":1")}/x` })).status).toBe(403);

    const tunnel = await new Promise<string>((resolve) => {
      const socket = net.connect(proxyPort, "127.0.0.1", () =>
        socket.write(`CONNECT ${secretHost} HTTP/1.1\r\nhost: ${secretHost}\r\n\r\n`),
      );
      let text = "";
      socket.on("data", (chunk) => (text += chunk.toString()));
      socket.on("close", () => resolve(text));
    });
    expect(tunnel).toMatch(/^HTTP\/1\.1 405/);
    expect(tunnel).toContain("package_proxy_tunnel_refused");
    expect(secretHits).toEqual([]);
    expect(logs.filter((line) => line.startsWith("package proxy: refused")).length).toBe(6);
  });

  it("bounds what a refusal writes to the log", async () => {
    logs.length = 0;
    await viaProxy({ url: `http://${"a".repeat(8_000)}.example/x` });
    expect(logs).toHaveLength(1);
    expect(logs[0]!.length).toBeLessThan(600);
  });
});
