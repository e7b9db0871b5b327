import { execFileSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { startModelGateway, type ModelGateway } from "./model-gateway";

const KEY = "sk-test-tls-upstream";

/** A self-signed certificate for localhost, made with the openssl CLI (no network, no registry). */
function selfSigned(): { key: string; cert: string } {
  const dir = tempDir("gateway-tls");
  const keyPath = path.join(dir, "key.pem");
  const certPath = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-nodes",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-keyout",
      keyPath,
      "-out",
      certPath,
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost",
    ],
    { stdio: "ignore" },
  );
  return { key: fs.readFileSync(keyPath, "utf8"), cert: fs.readFileSync(certPath, "utf8") };
}

describe("model gateway in front of an https upstream", () => {
  let server: https.Server;
  let baseUrl: string;
  let cert: string;
  const gateways: ModelGateway[] = [];
  const seenAuth: string[] = [];
  let connections = 0;

  beforeAll(async () => {
    const pair = selfSigned();
    cert = pair.cert;
    server = https.createServer(pair, (req, res) => {
      seenAuth.push(String(req.headers.authorization));
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (let i = 0; i < 200; i++)
          res.write(
            `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"${"x".repeat(1000)}"}\n\n`,
          );
        res.end(
          'event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":7,"output_tokens":9}}}\n\n',
        );
      });
    });
    server.on("secureConnection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `https://localhost:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function gatewayWith(ca: string | null) {
    const gateway = await startModelGateway({
      upstreamBaseUrl: baseUrl,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
      ...(ca ? { upstreamTls: { ca } } : {}),
    });
    gateways.push(gateway);
    return { gateway, token: gateway.issueRunToken({ runId: "tls" }) };
  }

  it("streams over TLS (certificate checked against the given CA), swaps the key and meters", async () => {
    const { gateway, token } = await gatewayWith(cert);
    const before = connections;
    for (let i = 0; i < 2; i++) {
      // twice: the second request reuses the kept-alive TLS connection
      const response = await fetch(`${gateway.url}/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: "{}",
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text.match(/response\.output_text\.delta"/g)?.length).toBe(200);
      expect(text).toContain('"output_tokens":9');
    }
    expect(seenAuth.slice(-2)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    expect(connections - before).toBe(1);
    expect(gateway.usage("tls")).toEqual({
      inputTokens: 14,
      cachedInputTokens: 0,
      outputTokens: 18,
      reasoningTokens: 0,
    });
  });

  it("refuses an upstream whose certificate it cannot verify (502 with the reason)", async () => {
    const { gateway, token } = await gatewayWith(null);
    const response = await fetch(`${gateway.url}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: "{}",
    });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("upstream_unreachable");
    expect(body.error.message).toMatch(/certificate/i);
    expect(gateway.lastUpstreamError("tls")).toMatch(/certificate/i);
  });
});
