import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAgentImage } from "../../../../test/support/agent-image";
import { tempDir, REPO_ROOT } from "../../../../test/support/temp";
import { createDockerRuntime } from "../runtime/docker-runtime";

/**
 * Both gateway bridges, for real in a no-network container: a client on the container's loopback
 * reaches an HTTP server on a host unix socket through them, request and 1 MiB response intact.
 */
const ASSETS = path.join(REPO_ROOT, "assets");
const BODY = Buffer.alloc(1024 * 1024, "0123456789abcdef");
let image: string;
let socketDir: string;
let server: http.Server;
const received: string[] = [];

beforeAll(async () => {
  image = await ensureAgentImage(createDockerRuntime());
  socketDir = tempDir("bridge-socket");
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": BODY.length });
      res.end(BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(path.join(socketDir, "gw.sock"), resolve));
}, 300_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** docker, asynchronously: the host server answers from this process's event loop. */
function run(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("docker", args);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", () => resolve({ stdout, stderr }));
  });
}

// a client with nothing but perl: send one request, count the response bytes
const CLIENT = `perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => 8787) or die "connect: $!"; print $s "POST /v1/responses HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 5\\r\\nConnection: close\\r\\n\\r\\nhello"; my ($n, $all, $buf) = (0, ""); while (($n = sysread($s, $buf, 65536)) > 0) { $all .= $buf } my ($head, $body) = split(/\\r\\n\\r\\n/, $all, 2); print((split(/\\r\\n/, $head))[0], " ", length($body), "\\n");'`;

describe.each([
  ["perl", "perl /b/gateway-bridge.pl"],
  ["node", "node /b/gateway-bridge.cjs"],
])("the %s gateway bridge", (_name, bridge) => {
  it("relays a request and a 1 MiB response between the container's loopback and the host socket", async () => {
    const script = `${bridge} 8787 /s/gw.sock /tmp/ready & while [ ! -e /tmp/ready ]; do sleep 0.01; done; ${CLIENT}`;
    const result = await run([
      "run",
      "--rm",
      "--network",
      "none",
      "-v",
      `${ASSETS}:/b:ro`,
      "-v",
      `${socketDir}:/s`,
      image,
      "sh",
      "-c",
      script,
    ]);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(`HTTP/1.1 200 OK ${BODY.length}`);
    expect(received.at(-1)).toBe("POST /v1/responses hello");
  });
});
