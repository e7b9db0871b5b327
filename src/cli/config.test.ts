import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_PORT, parseCli } from "./config";
import { UsageError } from "./usage-error";

describe("CLI configuration", () => {
  it("defaults to loopback, the documented port and the XDG data dir", () => {
    const config = parseCli([], { XDG_DATA_HOME: "/xdg" });
    expect(config).toMatchObject({
      command: "start",
      host: "127.0.0.1",
      port: DEFAULT_PORT,
      dataDir: "/xdg/invariant-web",
      redisUrl: null,
      open: false,
    });
    expect(parseCli([], {}).dataDir).toBe(path.join(os.homedir(), ".local", "share", "invariant-web"));
  });
  it("takes flags over environment variables", () => {
    const env = { INVARIANT_DATA_DIR: "/env-data", REDIS_URL: "redis://env:1", INVARIANT_PORT: "5000", DISPLAY: ":0" };
    expect(parseCli([], env)).toMatchObject({
      dataDir: "/env-data",
      redisUrl: "redis://env:1",
      port: 5000,
      open: true,
    });
    expect(
      parseCli(["--data-dir", "/flag", "--redis-url", "redis://flag:2", "--port", "6000", "--no-open"], env),
    ).toMatchObject({ dataDir: "/flag", redisUrl: "redis://flag:2", port: 6000, open: false });
  });
  it("reads subcommands and their flags", () => {
    expect(parseCli(["doctor", "--json"], {})).toMatchObject({ command: "doctor", json: true });
    expect(parseCli(["worker", "--concurrency", "3"], {})).toMatchObject({ command: "worker", concurrency: 3 });
    expect(parseCli(["--no-worker"], {})).toMatchObject({ command: "start", worker: false });
    expect(parseCli([], {})).toMatchObject({ worker: true });
  });
  it("reads the mock-model command (a free port unless --port) and the model gateway's sources", () => {
    expect(parseCli(["mock-model"], { INVARIANT_PORT: "5000" })).toMatchObject({
      command: "mock-model",
      port: 0,
      host: "127.0.0.1",
      scriptsDir: null,
    });
    expect(parseCli(["mock-model", "--port", "7000", "--scripts", "/s"], {})).toMatchObject({
      port: 7000,
      scriptsDir: "/s",
    });
    expect(parseCli([], {}).modelGateway).toEqual({
      openaiApiKey: null,
      codexHome: path.join(os.homedir(), ".codex"),
      upstreamBaseUrl: "https://api.openai.com/v1",
    });
    expect(
      parseCli([], { OPENAI_API_KEY: " sk-x ", CODEX_HOME: "/ch", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" })
        .modelGateway,
    ).toEqual({ openaiApiKey: "sk-x", codexHome: "/ch", upstreamBaseUrl: "http://127.0.0.1:9/v1" });
    expect(() => parseCli([], { OPENAI_BASE_URL: "not a url" })).toThrow(/OPENAI_BASE_URL must be a URL/);
  });
  it("reads Anthropic's and Google's keys as OpenAI's (trimmed, empty is unset; GEMINI_API_KEY before GOOGLE_API_KEY)", () => {
    const keys = (env: Record<string, string>) => {
      const { anthropicApiKey, googleApiKey } = parseCli([], env).modelGateway;
      return { anthropicApiKey, googleApiKey };
    };
    expect(keys({})).toEqual({ anthropicApiKey: undefined, googleApiKey: undefined });
    expect(keys({ ANTHROPIC_API_KEY: " sk-ant-a\n", GOOGLE_API_KEY: "AIza-g" })).toEqual({
      anthropicApiKey: "sk-ant-a",
      googleApiKey: "AIza-g",
    });
    expect(keys({ ANTHROPIC_API_KEY: "  ", GEMINI_API_KEY: "AIza-gemini", GOOGLE_API_KEY: "AIza-g" })).toEqual({
      anthropicApiKey: undefined,
      googleApiKey: "AIza-gemini",
    });
    expect(keys({ GEMINI_API_KEY: "", GOOGLE_API_KEY: "AIza-g" }).googleApiKey).toBe("AIza-g");
    expect(parseCli(["login"], {}).provider).toBeNull();
    expect(parseCli(["login", "--provider", "google"], {}).provider).toBe("google");
    expect(() => parseCli(["login", "--provider", "Google"], {})).toThrow(
      /--provider must be openai, anthropic, google \(not "Google"\)/,
    );
  });
  it("keeps browsers signed in for 30 days unless INVARIANT_SESSION_DAYS says otherwise", () => {
    expect(parseCli([], {}).sessionDays).toBe(30);
    expect(parseCli([], { INVARIANT_SESSION_DAYS: "7" }).sessionDays).toBe(7);
    expect(() => parseCli([], { INVARIANT_SESSION_DAYS: "0" })).toThrow(/1..365/);
    expect(() => parseCli([], { INVARIANT_SESSION_DAYS: "a week" })).toThrow(/whole number of days/);
  });
  it("bounds what a worker on another host may upload as INVARIANT_WORKER_MAX_*_MIB say (else the defaults)", () => {
    expect(parseCli([], {}).workerUploadMib).toEqual({ results: null, images: null });
    expect(
      parseCli([], { INVARIANT_WORKER_MAX_RESULT_MIB: "512", INVARIANT_WORKER_MAX_IMAGE_MIB: "8192" }).workerUploadMib,
    ).toEqual({
      results: 512,
      images: 8192,
    });
    expect(() => parseCli([], { INVARIANT_WORKER_MAX_RESULT_MIB: "0" })).toThrow(
      /INVARIANT_WORKER_MAX_RESULT_MIB must be 1\.\./,
    );
    expect(() => parseCli([], { INVARIANT_WORKER_MAX_IMAGE_MIB: "lots" })).toThrow(/whole number of MiB/);
  });
  it("reads the registry images move through (--registry over INVARIANT_REGISTRY) with this host's credentials", () => {
    expect(parseCli([], {}).registry).toBeNull();
    expect(parseCli(["--registry", "127.0.0.1:5000"], { INVARIANT_REGISTRY: "other:1" }).registry).toEqual({
      address: "127.0.0.1:5000",
      auth: null,
    });
    const env = {
      INVARIANT_REGISTRY: "registry.example.com/team/",
      INVARIANT_REGISTRY_USERNAME: "ci",
      INVARIANT_REGISTRY_PASSWORD: "s3cret",
    };
    expect(parseCli(["worker"], env).registry).toEqual({
      address: "registry.example.com/team",
      auth: { username: "ci", password: "s3cret" },
    });
    expect(() => parseCli(["--registry", "https://registry.example.com"], {})).toThrow(
      /without a scheme: registry.example.com/,
    );
    expect(() => parseCli(["--registry", "Registry:5000/Team"], {})).toThrow(/HOST\[:PORT\]\[\/PATH\] in lowercase/);
    expect(() => parseCli([], { INVARIANT_REGISTRY_USERNAME: "ci", INVARIANT_REGISTRY_PASSWORD: "x" })).toThrow(
      /no registry is: pass --registry/,
    );
    expect(() => parseCli(["--registry", "r:5000"], { INVARIANT_REGISTRY_USERNAME: "ci" })).toThrow(
      /both .* or neither/,
    );
  });
  it("explains bad input", () => {
    expect(() => parseCli(["--port", "abc"], {})).toThrow(UsageError);
    expect(() => parseCli(["--port", "70000"], {})).toThrow(/0..65535/);
    expect(() => parseCli(["--bogus"], {})).toThrow(/--help/);
    expect(() => parseCli([], { INVARIANT_PORT: "x" })).toThrow(/INVARIANT_PORT/);
  });
});
