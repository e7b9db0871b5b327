import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createStudyInputSchema } from "../src/shared/study-inputs";
import { trialLogPath } from "../src/server/core/trial-records/trial-log";
import { ADMIN_TOKEN, startHttpHarness, type HttpHarness } from "./support/http-harness";
import { redisUrlFor, tempDir } from "./support/temp";

/**
 * Issue 15, item 5 (bounded work at the tRPC endpoint and in the study form) and item 11 (the trial-log
 * download's descriptor), through the product's request handler on real SQLite and Redis.
 */
let app: HttpHarness;
let viewerToken: string;
beforeAll(async () => {
  app = await startHttpHarness({ redisUrl: redisUrlFor(inject("redisUrl"), 24) });
  viewerToken = (await app.services.access.createViewerLink({ label: "limits" })).token;
});
afterAll(async () => app?.close());

/** Sends the headers of a POST that announces `declared` bytes and only `sent` of them; resolves with the status or "no answer". */
function postWithoutBody(options: { token: string; declared: number; sent: number; waitMs: number }) {
  return new Promise<number | "no answer">((resolve) => {
    const req = http.request({
      host: "127.0.0.1",
      port: app.port,
      path: "/api/trpc/projects.add",
      method: "POST",
      headers: {
        authorization: `Bearer ${options.token}`,
        "content-type": "application/json",
        "content-length": String(options.declared),
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve("no answer");
    }, options.waitMs);
    req.on("response", (res) => {
      clearTimeout(timer);
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on("error", () => undefined);
    req.write(Buffer.alloc(options.sent, 0x20));
  });
}

describe("the tRPC endpoint (item 5)", () => {
  it("refuses a viewer's mutation before reading its body", async () => {
    // 50 MB announced, 10 bytes sent: only a server that does not wait for the body can answer
    expect(await postWithoutBody({ token: viewerToken, declared: 50_000_000, sent: 10, waitMs: 3000 })).toBe(403);
  });

  it("refuses a body over its size limit with 413, announced or streamed", async () => {
    expect(await postWithoutBody({ token: ADMIN_TOKEN, declared: 50_000_000, sent: 10, waitMs: 3000 })).toBe(413);
    const huge = JSON.stringify({ hostPath: "x".repeat(30 * 1024 * 1024) });
    const response = await fetch(`${app.base}/api/trpc/projects.add`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: huge,
    });
    expect(response.status).toBe(413);
  });
});

describe("the study form's uploads (item 5)", () => {
  it("are refused together above 16 MiB, each file still under its own 5 MiB", () => {
    const fourMiB = Buffer.alloc(4 * 1024 * 1024, 7).toString("base64");
    const input = (count: number) => ({
      projectId: "p",
      title: "t",
      taskPrompt: "do it",
      testCommand: "npm test",
      testFiles: Array.from({ length: count }, (_, index) => ({
        source: "upload" as const,
        path: `test/${index}.js`,
        contentBase64: fourMiB,
      })),
      configurations: [{ harness: "codex" as const, model: "m", repeats: 1 }],
    });
    expect(createStudyInputSchema.safeParse(input(4)).success).toBe(true);
    const refused = createStudyInputSchema.safeParse(input(5));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.message).join(" ")).toMatch(/at most 16 MiB/);
  });
});

/** Descriptors of this process open on `file`. */
function openDescriptors(file: string): number {
  return fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;
}

describe("the trial-log download (item 11)", () => {
  it("closes the log file when the client goes away mid-download", async () => {
    const projectDir = tempDir("limits-project");
    fs.writeFileSync(path.join(projectDir, "a.txt"), "a\n");
    const project = await app.services.projects.add({ hostPath: projectDir });
    const snapshot = await app.services.snapshots.create({ projectId: project.id });
    const study = await app.db.study.create({
      data: {
        projectId: project.id,
        title: "log",
        taskPrompt: "x",
        testCommand: "true",
        snapshotId: snapshot.id,
        state: "running",
        configurations: { create: [{ position: 1, model: "m", reasoningEffort: "low", repeats: 1 }] },
      },
      include: { configurations: true },
    });
    const trial = await app.db.trial.create({
      data: { studyId: study.id, configurationId: study.configurations[0]?.id ?? "", state: "agent" },
    });
    const file = trialLogPath({ dataDir: app.dataDir, trialId: trial.id, attempt: trial.attempt });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, Buffer.alloc(64 * 1024 * 1024, "y"));

    for (let round = 0; round < 3; round += 1) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get(
          {
            host: "127.0.0.1",
            port: app.port,
            path: `/api/trials/${trial.id}/log`,
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          },
          (res) => {
            expect(res.statusCode).toBe(200);
            res.once("data", () => {
              req.destroy(); // the browser tab closes mid-download
              resolve();
            });
          },
        );
        req.on("error", (error) =>
          (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error),
        );
      });
    }
    await expect.poll(() => openDescriptors(file), { timeout: 5000 }).toBe(0);
  });
});
