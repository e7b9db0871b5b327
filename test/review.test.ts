import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createRequestHandler } from "../src/server/web/http/request-handler";
import { readManifest } from "../src/server/core/snapshots/manifest";
import { appRouter } from "../src/server/web/trpc/app-router";
import { createCallerFactory } from "../src/server/web/trpc/init";
import { materializeSnapshot } from "../src/server/core/workspaces/materialize-snapshot";
import { readWorkspace } from "../src/server/core/workspaces/workspace-store";
import { flattenLayerInto } from "../src/server/core/workspaces/overlay-workspace";
import type { ReviewFileItem } from "../src/shared/review-schemas";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import { startWorker, type RunningWorker } from "../worker/main";
import { symlink, write } from "./support/file-trees";
import { gitApply, gitTree } from "./support/git-trees";
import { expectNoStall } from "./support/stall-budget";
import {
  addCalendarProject,
  calendarProject,
  connectRedis,
  createDockerRuntime,
  FAKE_KEY,
  openStudyWeb,
  redisUrlFor,
  scriptsDir,
  startMock,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";

/**
 * The trial review end to end: a real study (fix-all, fix-some, fix-none on the mock model through
 * the real Codex binary), then the review API through tRPC and the downloads through a real HTTP
 * server on the composition root (the same request handler the launcher uses).
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 10);
const ADMIN = "a_admintokenadmintokenadmintoken00";
const runtime = createDockerRuntime();
const createCaller = createCallerFactory(appRouter);
const sha = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const key = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const BINARY = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 37) % 256));
const BIG_TEXT = "a line of text, repeated to pass one mebibyte\n".repeat(25_000);

let dataDir: string;
let mock: Awaited<ReturnType<typeof startMock>>;
let web: StudyWeb;
let worker: RunningWorker;
let server: http.Server;
let base: string;
let viewerToken: string;
let study: StudyView;
const trialOf: Record<"all" | "some" | "none", TrialView> = {} as never;

const viewer = () => createCaller({ identity: { role: "viewer", subject: "link" }, services: web.services });

beforeAll(async () => {
  const redis = connectRedis({ url: REDIS_URL, name: "review-test" });
  await redis.flushdb();
  redis.disconnect();
  dataDir = tempDir("review-data");
  mock = await startMock(scriptsDir());
  web = await openStudyWeb({ dataDir, redisUrl: REDIS_URL, runtime });
  worker = await startWorker({
    redisUrl: REDIS_URL,
    dataDir,
    concurrency: 3,
    version: "test",
    modelGateway: { openaiApiKey: FAKE_KEY, codexHome: tempDir("host-codex"), upstreamBaseUrl: mock.url },
    log: () => undefined,
  });
  const projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
  const codex = (model: string) => ({ harness: "codex" as const, model, reasoningEffort: "low" as const, repeats: 1 });
  const created = await web.services.studies.create(
    {
      projectId,
      title: "Review",
      taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
      testCommand: "node --test",
      testFiles: [{ source: "project" as const, path: "test/calendar.test.js" }],
      concurrency: 3,
      configurations: [codex("calendar-fix-all"), codex("calendar-fix-some"), codex("calendar-fix-none")],
    },
    "admin",
  );
  study = await waitForStudy({ web, studyId: created.id, until: (s) => s.state === "done", timeoutMs: 150_000 });
  const byModel = (model: string) =>
    study.trials.find(
      (t) => study.configurations.find((c) => c.id === t.configurationId)?.model === model,
    ) as TrialView;
  trialOf.all = byModel("calendar-fix-all");
  trialOf.some = byModel("calendar-fix-some");
  trialOf.none = byModel("calendar-fix-none");

  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const handler = createRequestHandler({
    services: web.services,
    guard: { bindHost: "127.0.0.1", port, allowedHosts: [] },
    displayAddress: `127.0.0.1:${port}`,
    handleNext: (_req, res) => {
      res.writeHead(404).end();
      return Promise.resolve();
    },
    log: () => undefined,
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void handler(req, res));
  base = `http://127.0.0.1:${port}`;
  viewerToken = (await web.services.access.createViewerLink({ label: "review test" })).token;
}, 240_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await worker?.stop("test finished");
  await web?.close();
  await mock?.close();
});

/** A trial's workspace's own files: a copy's tree, or a copy-on-write workspace's upper layer. */
async function workspaceOf(trial: TrialView): Promise<string> {
  return (await readWorkspace({ dataDir, workspaceId: trial.workspaceId ?? "" })).path;
}

/** The workspace's files as the container saw them: a copy's tree, or an overlay's layers written out. */
async function mergedTreeOf(trial: TrialView): Promise<string> {
  const workspace = await readWorkspace({ dataDir, workspaceId: trial.workspaceId ?? "" });
  if (!workspace.overlay) return workspace.path;
  const tree = tempDir("review-merged");
  const manifest = await readManifest({ dataDir, snapshotId: workspace.snapshotId });
  await materializeSnapshot({ dataDir, manifest, tree });
  await flattenLayerInto({ upper: workspace.path, tree });
  return tree;
}

/** Plays an agent's chmod on the host: an overlay's unchanged file is copied up first, as the kernel would. */
async function chmodInWorkspace(trial: TrialView, rel: string, mode: number): Promise<void> {
  const workspace = await readWorkspace({ dataDir, workspaceId: trial.workspaceId ?? "" });
  const target = path.join(workspace.path, rel);
  if (workspace.overlay && !fs.existsSync(target)) fs.copyFileSync(path.join(workspace.overlay.lower, rel), target);
  fs.chmodSync(target, mode);
}

async function get(url: string, token = viewerToken): Promise<Response> {
  return fetch(`${base}${url}`, { headers: { authorization: `Bearer ${token}` } });
}

describe("reviewing a trial", () => {
  it("lists the changed files with counts, paged", async () => {
    expect(study.trials.map((t) => t.state).sort()).toEqual(["succeeded", "succeeded", "succeeded"].sort());
    const files = await viewer().review.files({ trialId: trialOf.some.id });
    expect(files.total).toBe(1);
    expect(files.nextCursor).toBeNull();
    const [item] = files.items as [ReviewFileItem];
    expect(item).toMatchObject({ path: "src/calendar.js", pathKey: key("src/calendar.js"), kind: "modified" });
    expect(item.insertions).toBeGreaterThan(10);
    expect(item.deletions).toBeGreaterThan(0);
    expect(item.before?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const summary = await viewer().review.summary({ trialId: trialOf.some.id });
    expect(summary).toMatchObject({ studyId: study.id, attempt: 1, live: false, snapshotId: study.snapshotId });
    expect(summary.configuration).toMatchObject({ number: 2, model: "calendar-fix-some", reasoningEffort: "low" });
    expect(summary.verdict).toMatchObject({ passed: 13, total: 23 });
    expect(summary.totals).toEqual({ files: 1, insertions: item.insertions, deletions: item.deletions });
    // the kind of workspace the worker made (copy-on-write here where the engine allows it) is in the manifest
    const workspace = await readWorkspace({ dataDir, workspaceId: trialOf.some.workspaceId ?? "" });
    expect(trialOf.some.manifest?.workspaceKind).toBe(workspace.kind);
  });

  it("returns a file's before and after text with its language", async () => {
    const file = await viewer().review.file({ trialId: trialOf.some.id, pathKey: key("src/calendar.js") });
    expect(file.language).toBe("javascript");
    expect(file.before.text).toContain('throw new Error("not implemented")');
    expect(file.after.text).toContain("year % 400 === 0");
    expect(file.after.sha256).toBe(sha(fs.readFileSync(path.join(await workspaceOf(trialOf.some), "src/calendar.js"))));
    await expect(viewer().review.file({ trialId: trialOf.some.id, pathKey: key(".git/config") })).rejects.toThrow(
      /neither changed by this trial nor a file of its snapshot/,
    );
  });

  it("sends the diff of the file opened first with the first page of the list", async () => {
    const first = await viewer().review.files({ trialId: trialOf.some.id, opened: true });
    expect(first.opened).toEqual(
      await viewer().review.file({ trialId: trialOf.some.id, pathKey: key("src/calendar.js") }),
    );
    const linked = await viewer().review.files({ trialId: trialOf.some.id, opened: key("package.json") });
    expect(linked.opened).toMatchObject({ path: "package.json", language: "json" });
    expect(linked.opened?.before.text).toBe(linked.opened?.after.text); // a snapshot file the trial left alone
    // a path it cannot show: the list still answers, and the page asks for that file on its own
    const unknown = await viewer().review.files({ trialId: trialOf.some.id, opened: key(".git/config") });
    expect(unknown).toMatchObject({ total: 1, opened: null });
    expect((await viewer().review.files({ trialId: trialOf.some.id })).opened).toBeUndefined();
  });

  it("has a transcript with the commands the mock agent ran", async () => {
    const transcript = await viewer().review.transcript({ trialId: trialOf.some.id });
    const kinds = transcript.items.map((item) => item.kind);
    expect(kinds[0]).toBe("start");
    expect(kinds.at(-1)).toBe("finish");
    const command = transcript.items.find((item) => item.kind === "command");
    expect(command).toMatchObject({ command: expect.stringContaining("cat src/calendar.js") as string, exitCode: 0 });
    expect(command?.kind === "command" && command.output).toContain("not implemented");
    expect(transcript.items.some((item) => item.kind === "message" && item.text.includes("ran out of time"))).toBe(
      true,
    );
    expect(transcript.items.some((item) => item.kind === "usage" && item.tokens.total > 0)).toBe(true);
    expect(transcript.live).toBe(false);
  });
});

describe("a trial with binary, big, linked and non-UTF-8 files", () => {
  const NON_UTF8 = Buffer.from("caf\xe9.txt", "latin1");

  beforeAll(async () => {
    // what an agent might leave: written before the review first looks at this trial
    const ws = await workspaceOf(trialOf.all);
    write(ws, "assets/logo.bin", BINARY);
    write(ws, "data/big.txt", BIG_TEXT);
    write(ws, "tools/run.sh", "#!/bin/sh\necho hi\n", 0o755);
    symlink(ws, "latest", "src/calendar.js");
    fs.writeFileSync(Buffer.concat([Buffer.from(`${ws}/`), NON_UTF8]), "latin1 name\n");
    await chmodInWorkspace(trialOf.all, "package.json", 0o755);
  });

  it("lists each with its kind; binary and big files give sizes and hashes, no text", async () => {
    const files = await viewer().review.files({ trialId: trialOf.all.id, limit: 2 });
    expect(files.total).toBe(7);
    expect(files.items).toHaveLength(2);
    expect(files.nextCursor).toBe(2);
    const all = [...files.items];
    for (let cursor = files.nextCursor; cursor !== null;) {
      const page = await viewer().review.files({ trialId: trialOf.all.id, cursor, limit: 2 });
      all.push(...page.items);
      cursor = page.nextCursor;
    }
    const kinds = Object.fromEntries(all.map((item) => [item.path, item.kind]));
    expect(kinds).toMatchObject({
      "assets/logo.bin": "binary",
      "data/big.txt": "added",
      latest: "symlink",
      "package.json": "mode",
      "src/calendar.js": "modified",
      "tools/run.sh": "added",
    });
    const odd = all.find((item) => item.path === "caf\\xe9.txt");
    expect(odd?.pathKey).toBe(NON_UTF8.toString("base64url"));
    expect(files.truncated).toBe(true); // big.txt has no line counts

    const binary = await viewer().review.file({ trialId: trialOf.all.id, pathKey: key("assets/logo.bin") });
    expect(binary.before.exists).toBe(false);
    expect(binary.after).toMatchObject({ exists: true, size: 5000, sha256: sha(BINARY), text: null, reason: "binary" });
    const big = await viewer().review.file({ trialId: trialOf.all.id, pathKey: key("data/big.txt") });
    expect(big.after).toMatchObject({ size: BIG_TEXT.length, sha256: sha(BIG_TEXT), text: null, reason: "too-large" });
    const link = await viewer().review.file({ trialId: trialOf.all.id, pathKey: key("latest") });
    expect(link.after).toMatchObject({ reason: "symlink", target: "src/calendar.js", text: null });
    const latin1 = await viewer().review.file({ trialId: trialOf.all.id, pathKey: odd?.pathKey ?? "" });
    expect(latin1.after.text).toBe("latin1 name\n");
  });

  it("downloads either side of a file as raw bytes", async () => {
    const after = await get(`/api/trials/${trialOf.all.id}/file?pathKey=${key("assets/logo.bin")}&side=after`);
    expect(after.status).toBe(200);
    expect(after.headers.get("content-type")).toBe("application/octet-stream");
    expect(after.headers.get("content-disposition")).toMatch(/^attachment; filename="after-logo.bin"$/);
    expect(Buffer.from(await after.arrayBuffer()).equals(BINARY)).toBe(true);
    const before = await get(`/api/trials/${trialOf.all.id}/file?pathKey=${key("src/calendar.js")}&side=before`);
    expect(await before.text()).toContain('throw new Error("not implemented")');
    const missing = await get(`/api/trials/${trialOf.all.id}/file?pathKey=${key("assets/logo.bin")}&side=before`);
    expect(missing.status).toBe(404);
    expect((await get(`/api/trials/${trialOf.all.id}/file?side=after`)).status).toBe(400);
    expect((await get(`/api/trials/${trialOf.all.id}/patch`, "wrong-token")).status).toBe(401);
  });

  it("downloads as one patch that git apply accepts on the snapshot and that reproduces the workspace", async () => {
    const response = await get(`/api/trials/${trialOf.all.id}/patch`, ADMIN);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="trial-${trialOf.all.id}-attempt-1.patch"`,
    );
    const patch = Buffer.from(await response.arrayBuffer());
    expect(patch.toString("latin1")).toContain("GIT binary patch");
    const patchFile = path.join(tempDir("review-patch"), "trial.patch");
    fs.writeFileSync(patchFile, patch);
    const manifest = await readManifest({ dataDir, snapshotId: study.snapshotId ?? "" });
    for (const trial of [trialOf.all, trialOf.some]) {
      const target = tempDir("review-apply");
      await materializeSnapshot({ dataDir, manifest, tree: target });
      const file = trial === trialOf.all ? patchFile : path.join(target, "..", `${path.basename(target)}.patch`);
      if (trial !== trialOf.all)
        fs.writeFileSync(file, Buffer.from(await (await get(`/api/trials/${trial.id}/patch`)).arrayBuffer()));
      gitApply(target, file, ["--check"]);
      gitApply(target, file);
      expect(gitTree(target)).toEqual(gitTree(await mergedTreeOf(trial)));
    }
  });

  it("compares trials: which trial changed which file, and any file of two of them", async () => {
    const compare = await viewer().review.compare({
      studyId: study.id,
      trialIds: [trialOf.all.id, trialOf.some.id, trialOf.none.id],
    });
    expect(compare.trials.map((t) => t.label)).toEqual([
      "Trial 1.1 · calendar-fix-all · low",
      "Trial 2.1 · calendar-fix-some · low",
      "Trial 3.1 · calendar-fix-none · low",
    ]);
    expect(compare.trials[0]?.verdict).toMatchObject({ passed: 23, total: 23 });
    const row = (p: string) => compare.files.find((file) => file.path === p)?.changes;
    expect(row("src/calendar.js")).toEqual({
      [trialOf.all.id]: "modified",
      [trialOf.some.id]: "modified",
      [trialOf.none.id]: null,
    });
    expect(row("assets/logo.bin")).toEqual({
      [trialOf.all.id]: "binary",
      [trialOf.some.id]: null,
      [trialOf.none.id]: null,
    });

    const ab = await viewer().review.compareFile({
      pathKey: key("src/calendar.js"),
      left: { trialId: trialOf.all.id },
      right: { trialId: trialOf.some.id },
    });
    expect(ab.left.text).toContain("export function formatRange");
    expect(ab.left.text).not.toEqual(ab.right.text);
    expect(ab.right.text).toContain('throw new Error("not implemented")');
    const snap = await viewer().review.compareFile({
      pathKey: key("src/calendar.js"),
      left: { snapshot: true, studyId: study.id },
      right: { trialId: trialOf.none.id },
    });
    expect(snap.left.sha256).toBe(snap.right.sha256);
    await expect(viewer().review.compare({ studyId: study.id, trialIds: [trialOf.all.id, "nope"] })).rejects.toThrow(
      /has no trial nope/,
    );
  });
});

describe("a workspace holding a 2 GiB sparse file", () => {
  it("is diffed off the main thread: /api/health keeps answering throughout", async () => {
    const ws = await workspaceOf(trialOf.none);
    const huge = path.join(ws, "huge.bin");
    fs.closeSync(fs.openSync(huge, "w"));
    fs.truncateSync(huge, 2 * 1024 ** 3);
    const healthLatencies = async (until: () => boolean) => {
      const latencies: number[] = [];
      while (!until()) {
        const started = performance.now();
        const response = await fetch(`${base}/api/health`);
        await response.text();
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return latencies;
    };
    let done = false;
    const probe = healthLatencies(() => done);
    const input = encodeURIComponent(JSON.stringify({ trialId: trialOf.none.id }));
    const started = performance.now();
    const response = await get(`/api/trpc/review.files?input=${input}`);
    const elapsed = performance.now() - started;
    done = true;
    const latencies = await probe;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { data: { items: ReviewFileItem[] } } };
    expect(body.result.data.items).toHaveLength(1);
    expect(body.result.data.items[0]).toMatchObject({
      path: "huge.bin",
      kind: "added",
      after: { size: 2 * 1024 ** 3 },
    });
    console.log(
      `2 GiB diff: ${Math.round(elapsed)} ms; ${latencies.length} health probes, max ${Math.round(Math.max(...latencies))} ms`,
    );
    expectNoStall({ stallsMs: latencies, workMs: elapsed });
    fs.rmSync(huge);
  });
});

describe("a trial without a workspace", () => {
  it("is refused with PRECONDITION_FAILED, and an unknown trial with NOT_FOUND", async () => {
    await web.db.trial.update({ where: { id: trialOf.none.id }, data: { workspaceId: null } });
    await expect(viewer().review.files({ trialId: trialOf.none.id })).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
    });
    await expect(viewer().review.summary({ trialId: "no-such-trial" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const response = await get(`/api/trials/${trialOf.none.id}/patch`);
    expect(response.status).toBe(412); // PRECONDITION_FAILED, as tRPC and the worker API answer it (one map: HTTP_STATUS)
    expect(await response.text()).toMatch(/has no workspace yet/);
  });
});
