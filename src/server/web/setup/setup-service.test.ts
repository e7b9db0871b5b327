import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { migratedDb, redisUrlFor, REPO_ROOT, tempDir } from "../../../../test/support/temp";
import { createAppServices, type AppServices } from "../wiring/app-services";
import type { Db } from "../../core/db/client";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import { appRouter } from "../trpc/app-router";
import { createCallerFactory } from "../trpc/init";
import { createSetupService } from "./setup-service";

const KEY = "sk-setup-RECOGNISABLE-4711";
const ANTHROPIC_KEY = "sk-ant-api03-setup-RECOGNISABLE-7777";
const GOOGLE_KEY = "AIzaSySetup-RECOGNISABLE-9999";
const logs: string[] = [];
let db: Db;
let dataDir: string;
let services: AppServices;
const createCaller = createCallerFactory(appRouter);

beforeAll(async () => {
  const opened = await migratedDb();
  db = opened.db;
  dataDir = opened.dataDir;
  services = createAppServices({
    db,
    redisUrl: redisUrlFor(inject("redisUrl"), 2),
    dataDir,
    adminToken: "a_admintokenadmintokenadmintoken00",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    runtime: createDockerRuntime(),
    sessionRuntime: (policy) => createDockerRuntime(policy),
    modelAccess: { environmentKey: false, codexHome: tempDir("no-codex") },
    log: (line) => logs.push(line),
  });
});
afterAll(async () => {
  await services.close();
  await db.$disconnect();
});

const admin = () => createCaller({ identity: { role: "admin", subject: "admin" }, services });
const viewer = () => createCaller({ identity: { role: "viewer", subject: "link" }, services });

describe("setup checklist and the stored API key", () => {
  it("lists the doctor's checks, the base image and model access, and is needed without model access", async () => {
    const status = await admin().setup.status();
    expect(status.checks.map((check) => check.id)).toEqual([
      "node",
      "docker",
      "redis",
      "disk",
      "codex",
      "claude-code",
      "gemini-cli",
      "certificates",
      "base-image",
      "model-access",
    ]);
    expect(status.modelAccess.source).toBe("none");
    expect(status.checks.find((check) => check.id === "model-access")).toMatchObject({
      status: "fail",
      action: "store-key",
      fix: expect.stringMatching(/invariant-web login/) as string,
    });
    expect(status.needed).toBe(true);
  });

  it("stores the key for the gateway and never gives it back, to the admin or a viewer; a viewer cannot change it", async () => {
    await expect(viewer().setup.storeApiKey({ apiKey: KEY })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(viewer().setup.removeApiKey({ provider: "openai" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(admin().setup.storeApiKey({ apiKey: "two words" })).rejects.toThrow(/no spaces/);
    const stored = await admin().setup.storeApiKey({ apiKey: KEY });
    expect(JSON.stringify(stored)).not.toContain(KEY);
    expect(stored.modelAccess.source).toBe("stored-key");
    for (const caller of [admin(), viewer()]) {
      const status = await caller.setup.status();
      expect(status.modelAccess).toMatchObject({ source: "stored-key", storedKeyAt: stored.storedAt });
      expect(JSON.stringify(status)).not.toContain(KEY);
      expect(status.checks.find((check) => check.id === "model-access")?.status).toBe("ok");
    }
    const file = path.join(dataDir, "credentials", "openai-api-key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    for (const name of fs.readdirSync(dataDir).filter((n) => n.startsWith("invariant.db")))
      expect(fs.readFileSync(path.join(dataDir, name)).includes(Buffer.from(KEY)), name).toBe(false);
    expect(await admin().setup.removeApiKey({ provider: "openai" })).toMatchObject({
      removed: true,
      modelAccess: { source: "none" },
    });
    expect(fs.existsSync(file)).toBe(false);
  });

  it("stores, shows (last four characters only) and removes each provider's key; the harnesses follow", async () => {
    const usable = async () =>
      Object.fromEntries((await viewer().setup.status()).harnesses.map((h) => [h.kind, h.usable]));
    expect(await usable()).toEqual({ codex: false, "claude-code": false, "gemini-cli": false });
    await expect(viewer().setup.storeApiKey({ apiKey: ANTHROPIC_KEY, provider: "anthropic" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(admin().setup.storeApiKey({ apiKey: ANTHROPIC_KEY, provider: "google" })).rejects.toThrow(
      /^That looks like an Anthropic API key \(it starts with sk-ant-\), not a Google one/,
    );
    await expect(
      admin().setup.storeApiKey({ apiKey: GOOGLE_KEY, provider: "mistral" as "google" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(fs.existsSync(path.join(dataDir, "credentials", "google-api-key"))).toBe(false);

    const stored = await admin().setup.storeApiKey({ apiKey: ANTHROPIC_KEY, provider: "anthropic" });
    expect(stored.providers.find((view) => view.provider === "anthropic")).toMatchObject({
      signedIn: true,
      source: "stored-key",
      storedKeyEnding: "7777",
    });
    expect(await usable()).toEqual({ codex: false, "claude-code": true, "gemini-cli": false });
    const check = (await viewer().setup.status()).checks.find((c) => c.id === "model-access");
    expect(check).toMatchObject({ status: "ok" });
    expect(check?.detail).toContain("Claude Code usable (Anthropic access). Gemini CLI not usable: no Google access.");
    await admin().setup.storeApiKey({ apiKey: GOOGLE_KEY, provider: "google" });
    await admin().setup.storeApiKey({ apiKey: KEY });
    expect(await usable()).toEqual({ codex: true, "claude-code": true, "gemini-cli": true });

    const status = await viewer().setup.status();
    expect(JSON.stringify(status)).not.toMatch(/RECOGNISABLE/);
    for (const provider of ["openai", "anthropic", "google"])
      expect(fs.statSync(path.join(dataDir, "credentials", `${provider}-api-key`)).mode & 0o777).toBe(0o600);
    for (const name of fs.readdirSync(dataDir).filter((n) => n.startsWith("invariant.db")))
      expect(fs.readFileSync(path.join(dataDir, name)).includes("RECOGNISABLE"), name).toBe(false);
    expect(logs.join("\n")).toContain("the Anthropic API key was stored");
    expect(logs.join("\n")).not.toMatch(/RECOGNISABLE|sk-ant-|AIza/);

    expect(await admin().setup.removeApiKey({ provider: "anthropic" })).toMatchObject({ removed: true });
    expect(await usable()).toEqual({ codex: true, "claude-code": false, "gemini-cli": true });
    await admin().setup.removeApiKey({ provider: "google" });
    await admin().setup.removeApiKey({ provider: "openai" });
    expect(fs.readdirSync(path.join(dataDir, "credentials"))).toEqual([]);
  });

  it("says a key from the environment wins over the stored one, per provider", async () => {
    const setup = createSetupService({
      runtime: createDockerRuntime(),
      dataDir,
      redisUrl: redisUrlFor(inject("redisUrl"), 2),
      baseImage: "invariant-missing:none",
      modelAccess: { environmentKey: false, codexHome: tempDir("no-codex"), environmentKeys: { google: true } },
      root: REPO_ROOT,
    });
    setup.storeApiKey(GOOGLE_KEY, "google");
    try {
      const google = (await setup.status()).providers.find((view) => view.provider === "google");
      expect(google).toMatchObject({
        signedIn: true,
        source: "environment",
        environmentKey: true,
        storedKeyEnding: "9999",
      });
      expect(google?.summary).toBe(
        "GEMINI_API_KEY or GOOGLE_API_KEY from the environment invariant-web was started in (it wins over the stored key).",
      );
    } finally {
      setup.removeApiKey("google");
    }
  });

  it("offers to build a missing base image", async () => {
    const setup = createSetupService({
      runtime: createDockerRuntime(),
      dataDir,
      redisUrl: redisUrlFor(inject("redisUrl"), 2),
      baseImage: "invariant-missing:none",
      modelAccess: { environmentKey: true, codexHome: tempDir("no-codex") },
      root: REPO_ROOT,
    });
    const status = await setup.status();
    expect(status.checks.find((check) => check.id === "base-image")).toMatchObject({
      status: "fail",
      detail: "invariant-missing:none is not in Docker",
      action: "build-base-image",
      fix: expect.stringMatching(/^Build it here with the button/) as string,
    });
    expect(status.needed).toBe(true);
  });

  it("flags a base image of an older revision (Node.js 18 without npm) and offers to rebuild it", async () => {
    const tag = "invariant-base:setup-test-old";
    // an image as revision 1 of scripts/base-image.mjs left it: no revision label
    execFileSync("sh", ["-c", `tar -c -T /dev/null | docker import - ${tag}`], { stdio: "ignore" });
    try {
      const setup = createSetupService({
        runtime: createDockerRuntime(),
        dataDir,
        redisUrl: redisUrlFor(inject("redisUrl"), 2),
        baseImage: tag,
        modelAccess: { environmentKey: true, codexHome: tempDir("no-codex") },
        root: REPO_ROOT,
      });
      expect((await setup.status()).checks.find((check) => check.id === "base-image")).toMatchObject({
        status: "warn",
        detail: `${tag} is an older build (revision 1: Node.js 18 from Debian, no npm, no build tools)`,
        action: "build-base-image",
        fix: expect.stringMatching(/^Rebuild it with the button/) as string,
      });
    } finally {
      execFileSync("docker", ["rmi", "-f", tag], { stdio: "ignore" });
    }
  });

  it("runs the package's base image script from the Setup page and keeps its output (offline: the image exists)", async () => {
    await expect(viewer().setup.buildBaseImage()).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await admin().setup.baseImageBuild()).toBeNull();
    const started = await admin().setup.buildBaseImage();
    expect(started).toMatchObject({ running: true, exitCode: null });
    // a second click while it runs is the same build
    expect((await admin().setup.buildBaseImage()).startedAt).toBe(started.startedAt);
    await expect.poll(async () => (await admin().setup.baseImageBuild())?.running, { timeout: 60_000 }).toBe(false);
    const done = await viewer().setup.baseImageBuild();
    expect(done).toMatchObject({ running: false, exitCode: 0 });
    expect(done?.output).toContain("invariant-base:bookworm already exists");
  });

  it("lets only the admin browse the host's folders", async () => {
    await expect(viewer().projects.browseFolders({ path: null })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const listing = await admin().projects.browseFolders({ path: null });
    expect(listing.parent).toBeNull();
    // the home folder and where this process was started are the roots; it opens at one of them
    const roots = [fs.realpathSync(os.homedir()), fs.realpathSync(process.cwd())];
    expect(listing.roots.map((root) => root.path)).toEqual([...new Set(roots)]);
    expect(roots).toContain(listing.path);
    await expect(admin().projects.browseFolders({ path: "/" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
