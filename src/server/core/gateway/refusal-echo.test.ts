import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelGateway, type ModelGateway } from "./model-gateway";

/**
 * What a refusal echoes of the request is bounded (issue 23, point 7): a request is the agent's, and one
 * field of 20 MiB (a remote MCP tool's `server_url`, a model name, a tool type) once became a 20 MiB log
 * line, error body and run error. Each echoed field is cut to 200 characters with an ellipsis.
 */
const BIG = 20 * 1024 * 1024;
const huge = (prefix: string) => `${prefix}${"A".repeat(BIG)}`;

describe("refusals of requests with huge fields", () => {
  let upstream: http.Server;
  let gateway: ModelGateway;
  let forwarded = 0;
  const logs: string[] = [];

  beforeAll(async () => {
    upstream = http.createServer((_req, res) => {
      forwarded += 1;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    gateway = await startModelGateway({
      upstreamBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
      credential: () => ({ apiKey: "sk-test-ECHO-123", source: "OPENAI_API_KEY" }),
      log: (line) => logs.push(line),
    });
  });
  afterAll(async () => {
    await gateway.close();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it("echoes at most 200 characters of each field into the answer, the log and the run's error", async () => {
    const token = gateway.issueRunToken({ runId: "echo", policy: { model: "gpt-5-codex", hostedTools: false } });
    const bodies = [
      { model: "gpt-5-codex", tools: [{ type: "mcp", server_label: "x", server_url: huge("https://exfil.invalid/") }] },
      { model: huge("gpt-") },
      { model: "gpt-5-codex", tools: [{ type: huge("web_search_") }] },
      { model: "gpt-5-codex", tool_choice: { type: huge("file_search_") } },
      { model: "gpt-5-codex", input: [{ content: [{ type: huge("input_image_"), image_url: "https://x.invalid" }] }] },
    ];
    for (const body of bodies) {
      logs.length = 0;
      const res = await fetch(`${gateway.url}/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text.length).toBeLessThan(1_000);
      expect(text).toContain("… (20,971,");
      expect(logs.join("\n").length).toBeLessThan(1_000);
      expect(logs.join("\n")).toContain("AAAA… (20,971,");
      expect(gateway.lastUpstreamError("echo")!.length).toBeLessThan(1_000);
    }
    expect(forwarded).toBe(0);
  });

  it("cuts a long path in a 404 the same way", async () => {
    const token = gateway.issueRunToken({ runId: "path" });
    const res = await fetch(`${gateway.url}/${"p".repeat(10_000)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text.length).toBeLessThan(1_000);
    expect(text).toMatch(/p… \(10,0\d\d characters\)/);
  });
});
