import { describe, expect, it } from "vitest";
import { checkResponsesBody, isRefusal, matchRoute, type RunPolicy } from "./request-policy";
import { DEFAULT_RATE_LIMIT, freshRateState, takeRequest } from "./run-rate-limit";

const NONE: RunPolicy = { model: "gpt-5-codex", hostedTools: false };
const INTERNET: RunPolicy = { model: "gpt-5-codex", hostedTools: true };

const check = (body: unknown, policy: RunPolicy = NONE) =>
  checkResponsesBody({ body: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)), policy });

/** The shape of the request Codex 0.171 sends (tools trimmed), with web search disabled as the harness does. */
const codexRequest = {
  model: "gpt-5-codex",
  stream: true,
  input: [
    { type: "message", role: "developer", content: [{ type: "input_text", text: "rules" }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: "fix it" }] },
    { type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}', call_id: "c1" },
    { type: "function_call_output", call_id: "c1", output: "a.txt" },
    { type: "message", role: "user", content: [{ type: "input_image", image_url: "data:image/png;base64,iVBORw0=" }] },
  ],
  tools: [
    { type: "function", name: "exec_command", parameters: { type: "object" } },
    { type: "custom", name: "apply_patch", format: { type: "grammar" } },
    { type: "namespace", name: "multi_agent_v1", tools: [{ type: "function", name: "spawn_agent" }] },
  ],
  tool_choice: "auto",
  store: false,
};

describe("the gateway's request policy", () => {
  it("passes an ordinary Codex request, as the same JSON", () => {
    const passed = check(codexRequest);
    expect(isRefusal(passed)).toBe(false);
    expect(JSON.parse((passed as Buffer).toString("utf8"))).toEqual(codexRequest);
  });

  it("pins the model, and forwards the value it checked (duplicate keys cannot smuggle another)", () => {
    expect(check({ ...codexRequest, model: "o3-pro" })).toMatchObject({ status: 400, type: "model_not_allowed" });
    expect(check('{"model":"gpt-5-codex","model":"o3-pro"}')).toMatchObject({ type: "model_not_allowed" });
    const passed = check('{"model":"o3-pro","model":"gpt-5-codex","input":"hi"}') as Buffer;
    expect(passed.toString("utf8")).toBe('{"model":"gpt-5-codex","input":"hi"}');
    expect(isRefusal(check({ model: "anything" }, { model: null, hostedTools: false }))).toBe(false);
  });

  it("pins a configuration that names no model to none: every model request is refused, saying what to set", () => {
    const refusal = check({ ...codexRequest, model: "gpt-5-codex" }, { model: "", hostedTools: false });
    expect(refusal).toMatchObject({ status: 400, type: "model_not_allowed" });
    expect((refusal as { message: string }).message).toContain(
      "this run's configuration names no model, so the gateway forwards no model request for it",
    );
  });

  it("refuses a background response, whatever its value other than false or null", () => {
    for (const background of [true, "true", 1, {}])
      expect(check({ ...codexRequest, background }), JSON.stringify(background)).toMatchObject({
        status: 400,
        type: "background_not_allowed",
      });
    for (const background of [false, null]) expect(isRefusal(check({ ...codexRequest, background }))).toBe(false);
  });

  it("refuses hosted tools and URL inputs in network mode none, and lets them through where the network is allowed", () => {
    const attempts = [
      { tools: [{ type: "web_search" }] },
      { tools: [{ type: "mcp", server_label: "x", server_url: "https://exfil.invalid" }] },
      { tools: [{ type: "namespace", name: "n", tools: [{ type: "code_interpreter" }] }] },
      { tools: [{ type: "function", name: "f" }, { type: "image_generation" }] },
      { tools: "web_search" },
      { tool_choice: { type: "file_search" } },
      { tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "web_search_preview" }] } },
      { input: [{ role: "user", content: [{ type: "input_image", image_url: "https://exfil.invalid/?q=secret" }] }] },
      { input: [{ role: "user", content: [{ type: "input_image", image_url: { url: "http://exfil.invalid" } }] }] },
      { input: [{ role: "user", content: [{ type: "input_file", file_url: "https://exfil.invalid/a.pdf" }] }] },
      { input: [{ role: "user", content: [{ type: "input_image", file_id: "file-1" }] }] },
      { prompt: { id: "pmpt_1", variables: { page: { type: "input_image", image_url: "https://exfil.invalid" } } } },
    ];
    for (const attempt of attempts) {
      const body = { model: "gpt-5-codex", input: "hi", ...attempt };
      const refused = check(body);
      expect(refused, JSON.stringify(attempt)).toMatchObject({
        status: 400,
        type: expect.stringMatching(/^(hosted_tool|url_input)_not_allowed$/) as unknown,
        message: expect.stringContaining('network mode is "none"') as unknown,
      });
      if (typeof attempt.tools !== "string")
        expect(isRefusal(check(body, INTERNET)), JSON.stringify(attempt)).toBe(false);
    }
  });

  it("refuses a body that is not a JSON object, and checks a deeply nested one without overflowing", () => {
    for (const body of ["", "[]", "null", "model=x", "{"])
      expect(check(body), body).toMatchObject({ status: 400, type: "invalid_request_body" });
    const image = '{"type":"input_image","image_url":"https://exfil.invalid"}';
    const nested = (depth: number, inner: string) => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
    expect(check(`{"model":"gpt-5-codex","input":${nested(5000, image)}}`)).toMatchObject({
      type: "url_input_not_allowed",
    });
    expect(check(`{"model":"gpt-5-codex","input":${nested(200_000, '"hi"')}}`)).toMatchObject({
      status: 400,
      type: "invalid_request_body",
    });
  });

  it("allows only the methods and paths Codex uses", () => {
    expect(matchRoute({ method: "POST", subPath: "/responses" })).toMatchObject({ body: "responses" });
    expect(matchRoute({ method: "POST", subPath: "/responses/compact" })).toMatchObject({ body: "responses" });
    expect(matchRoute({ method: "GET", subPath: "/models" })).toMatchObject({ body: "none" });
    expect(matchRoute({ method: "GET", subPath: "/responses" })).toMatchObject({ status: 405 });
    for (const subPath of ["/responses/resp_1", "/responses/resp_1/input_items", "/files", "/models/gpt-5", "/"])
      expect(matchRoute({ method: "GET", subPath }), subPath).toMatchObject({ status: 404, type: "not_found" });
  });

  it("rate-limits a run: a burst, a steady refill, and a cap on requests in flight", () => {
    const limit = { burst: 3, perSecond: 2, concurrent: 2 };
    const state = freshRateState(limit, 0);
    const take = (now: number, inFlight = 0) => takeRequest({ limit, state, inFlight, now });
    expect([take(0), take(0), take(0)]).toEqual([null, null, null]);
    expect(take(0)).toMatchObject({ retryAfterSeconds: 1, message: expect.stringMatching(/faster than/) as unknown });
    expect(take(500)).toBeNull(); // half a second refills one at 2 per second
    expect(take(500)).not.toBeNull();
    expect(take(10_000, 2)).toMatchObject({ message: expect.stringMatching(/2 model requests in flight/) as unknown });
    expect(DEFAULT_RATE_LIMIT.burst).toBeGreaterThanOrEqual(60);
  });
});
