import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  addCalendarProject,
  createDockerRuntime,
  redisUrlFor,
  removeImages,
  REPO_ROOT,
  tempDir,
} from "./support/study-harness";
import { startStudyStack, type StudyStack } from "./support/study-stack";
import { MAX_TRPC_BODY_BYTES } from "../src/server/web/http/trpc-endpoint";
import {
  ADMIN_TOKEN,
  bundleCli,
  callTool,
  httpConnection,
  serveDashboard,
  stdioConnection,
  type McpConnection,
} from "./support/mcp-rig";

/**
 * Issue 28, point 1 on the real stack (the product's HTTP handler, a worker, Codex in containers, the
 * scripted mock model): the MCP SDK's own client drives a study end to end — create → wait → verdicts →
 * diff → choose → apply by the plan's hash — over stdio (`invariant-web mcp`, the CLI bundled from source)
 * and over streamable HTTP (the dashboard's /mcp), one project each; a viewer's token gets the read-only
 * tools only, and a forged write call is refused.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 32);
const runtime = createDockerRuntime();

let stack: StudyStack | undefined;
let dashboard: Awaited<ReturnType<typeof serveDashboard>> | undefined;
let cli: Awaited<ReturnType<typeof bundleCli>> | undefined;
const projects: { id: string; dir: string }[] = [];
let viewerToken = "";
const open: McpConnection[] = [];

/** A copy of the calendar fixture in a folder of its own name (the project's name). */
function calendarCopy(name: string): string {
  const dir = path.join(tempDir("mcp-project"), name);
  fs.cpSync(path.join(REPO_ROOT, "fixtures", "calendar-project"), dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  [stack, cli] = await Promise.all([
    startStudyStack({ name: "mcp", redisUrl: REDIS_URL, runtime, scripts: {}, concurrency: 2 }),
    bundleCli(),
  ]);
  for (const name of ["calendar-stdio", "calendar-http"]) {
    const dir = calendarCopy(name);
    projects.push({ id: await addCalendarProject({ web: stack.web, runtime, projectDir: dir }), dir });
  }
  dashboard = await serveDashboard({ services: stack.web.services, dataDir: stack.dataDir });
  viewerToken = (await stack.web.services.access.createViewerLink({ label: "mcp viewer" })).token;
}, 300_000);

afterAll(async () => {
  await Promise.all(open.map((connection) => connection.close().catch(() => undefined)));
  await dashboard?.close();
  await stack?.close();
  cli?.remove();
  for (const project of projects) removeImages(`invariant-trial/${project.id.toLowerCase()}`);
});

async function connect(make: () => Promise<McpConnection>): Promise<McpConnection> {
  const connection = await make();
  open.push(connection);
  return connection;
}

const stdio = (env?: Record<string, string>) =>
  connect(() => stdioConnection({ bin: cli?.bin ?? "", dataDir: stack?.dataDir ?? "", ...(env ? { env } : {}) }));
const overHttp = (token: string) => connect(() => httpConnection({ url: dashboard?.url ?? "", token }));

const WRITE_TOOLS = [
  "project_add",
  "environment_prepare",
  "dependencies_install",
  "study_create",
  "study_choose",
  "apply",
];

const study = (project: string) => ({
  project,
  title: `Calendar over MCP (${project})`,
  taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
  testCommand: "node --test",
  testFiles: [{ source: "project", path: "test/calendar.test.js" }],
  configurations: [{ model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 }],
});

interface TrialBrief {
  id: string;
  name: string;
  state: string;
  verdict: { passed: number | null; total: number | null } | null;
}

/** create → wait (with progress) → verdicts → tests → diff → choose → plan → apply by its hash → report. */
async function driveStudy(
  connection: McpConnection,
  project: { name: string; dir: string },
): Promise<{ studyId: string; trialId: string }> {
  const { client } = connection;
  const created = await callTool(client, "study_create", study(project.name));
  if (!created.ok) throw new Error(created.text);
  const studyId = (created.data.study as { id: string; state: string }).id;
  expect(created.data.study).toMatchObject({ state: "preflight", projectName: project.name });

  // waitSeconds 0 gives up at the first look: the preflight alone takes longer (containers)
  const early = await callTool(client, "study_wait", { studyId, waitSeconds: 0 });
  expect(early).toMatchObject({ ok: false, error: { kind: "timeout", exitCode: 4, code: null } });

  let progress = 0;
  let ended: Awaited<ReturnType<typeof callTool>> | null = null;
  for (let round = 0; round < 20 && !ended; round += 1) {
    const waited = await callTool(
      client,
      "study_wait",
      { studyId, waitSeconds: 40 },
      { timeout: 90_000, onprogress: () => (progress += 1) },
    );
    if (waited.ok) ended = waited;
    else expect(waited.error).toMatchObject({ kind: "timeout", exitCode: 4 });
  }
  if (!ended?.ok) throw new Error("the study did not end");
  expect(progress).toBeGreaterThan(0);
  const shown = await callTool(client, "study_show", { studyId });
  if (!shown.ok) throw new Error(shown.text);
  const { baseline, trials, state } = shown.data.study as { baseline: unknown; trials: TrialBrief[]; state: string };
  expect(state).toBe("done");
  expect(baseline).toMatchObject({ passed: 0, total: 23 });
  expect(trials.map((t) => [t.name, t.state, t.verdict?.passed, t.verdict?.total])).toEqual([
    ["Trial 1.1", "succeeded", 23, 23],
  ]);
  const trialId = trials[0]?.id ?? "";

  const tests = await callTool(client, "trial_tests", { trialId });
  expect(tests.ok && JSON.stringify(tests.data.tests).length).toBeGreaterThan(100);
  const diff = await callTool(client, "trial_diff", { trialId });
  if (!diff.ok) throw new Error(diff.text);
  const files = diff.data.files as { path: string; status: string; binary: boolean; insertions: number }[];
  expect(files.map((f) => [f.path, f.status, f.binary])).toEqual([["src/calendar.js", "modified", false]]);
  expect(files[0]?.insertions).toBeGreaterThan(0);
  expect(diff.data.patch).toContain("+++ b/src/calendar.js");
  const transcript = await callTool(client, "trial_transcript", { trialId });
  expect(transcript.ok).toBe(true);

  const chosen = await callTool(client, "study_choose", { studyId, trialId, note: "all pass" });
  expect(chosen.ok && chosen.data.study).toMatchObject({ chosen: { trialId, note: "all pass" } });

  const plan = await callTool(client, "apply_plan", { trialId });
  if (!plan.ok) throw new Error(plan.text);
  const { planHash, steps, conflicts } = plan.data.plan as { planHash: string; steps: unknown[]; conflicts: unknown[] };
  expect(steps).toEqual([expect.objectContaining({ path: "src/calendar.js", action: "modify" })]);
  expect(conflicts).toEqual([]);
  const before = fs.readFileSync(path.join(project.dir, "src/calendar.js"), "utf8");
  const wrongHash = await callTool(client, "apply", { trialId, planHash: "0".repeat(64) });
  expect(wrongHash.ok).toBe(false);
  expect(fs.readFileSync(path.join(project.dir, "src/calendar.js"), "utf8")).toBe(before);
  const applied = await callTool(client, "apply", { trialId, planHash });
  if (!applied.ok) throw new Error(applied.text);
  expect(applied.data.result).toMatchObject({ outcome: "applied", trialId, appliedBy: "admin" });
  expect(fs.readFileSync(path.join(project.dir, "src/calendar.js"), "utf8")).not.toBe(before);

  const report = await client.readResource({ uri: `invariant://studies/${studyId}/report.md` });
  expect(report.contents[0]).toMatchObject({ mimeType: "text/markdown" });
  expect(String((report.contents[0] as { text?: string }).text)).toContain(`Calendar over MCP (${project.name})`);
  const listed = await client.listResources();
  expect(listed.resources.map((r) => r.uri)).toContain(`invariant://studies/${studyId}/report.json`);
  return { studyId, trialId };
}

/** Until the study is over again (a follow-up was queued). */
async function waitAgain(connection: McpConnection, studyId: string) {
  for (let round = 0; round < 20; round += 1) {
    const waited = await callTool(connection.client, "study_wait", { studyId, waitSeconds: 40 }, { timeout: 90_000 });
    if (waited.ok) return waited.data.study as { trials: (TrialBrief & { parentTrialId: string | null })[] };
  }
  throw new Error("the study did not end");
}

/** B's and C1's procedures through their tools: a comment, a follow-up with feedback, a branch's preview. */
async function feedbackAndBranch(connection: McpConnection, ids: { studyId: string; trialId: string }) {
  const { client } = connection;
  const comment = await callTool(client, "trial_comment", { trialId: ids.trialId, body: "Keep the tests green." });
  expect(comment.ok).toBe(true);
  const comments = await callTool(client, "review_comments", { trialId: ids.trialId });
  expect(comments.ok && (comments.data.comments as { body: string }[]).map((c) => c.body)).toEqual([
    "Keep the tests green.",
  ]);
  const followUp = await callTool(client, "trial_follow_up", { studyId: ids.studyId, trialIds: [ids.trialId] });
  if (!followUp.ok) throw new Error(followUp.text);
  const after = await waitAgain(connection, ids.studyId);
  const child = after.trials.find((t) => t.parentTrialId === ids.trialId);
  expect(child).toMatchObject({ name: "Trial 1.1.1", state: "succeeded" });
  const preview = await callTool(client, "branch_preview", { trialId: ids.trialId });
  // the fixture's copy is no git repository: the preview says why no branch can be made
  expect(preview.ok && (preview.data.preview as { problem: string | null }).problem).toMatch(/git/i);
}

describe("the MCP server", () => {
  it("lists every tool for the admin, with input schemas from the product's zod schemas; bad input is a usage error", async () => {
    const { client, stderr } = await stdio();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        ...WRITE_TOOLS,
        "projects_list",
        "study_wait",
        "trial_diff",
        "apply_plan",
        "sessions_list",
      ]),
    );
    const create = tools.find((tool) => tool.name === "study_create");
    expect(create?.inputSchema.required).toEqual(
      expect.arrayContaining(["project", "title", "taskPrompt", "testCommand", "configurations"]),
    );
    expect(create?.inputSchema).toMatchObject({ additionalProperties: false });
    expect(tools.find((tool) => tool.name === "apply")?.inputSchema.properties?.planHash).toMatchObject({
      pattern: "^[0-9a-f]{64}$",
    });
    expect(stderr()).toContain("as admin on stdio");

    const bad = await callTool(client, "study_create", {
      ...study("calendar-stdio"),
      title: "",
      configurations: [{ model: "x", repeats: 0 }],
    });
    expect(bad).toMatchObject({ ok: false, error: { kind: "usage", exitCode: 2, field: "title" } });
    if (bad.ok) throw new Error("accepted");
    expect(bad.error.fieldErrors?.["configurations.0.repeats"]).toEqual(["At least 1 repeat."]);
    expect(bad.text).toContain("configurations.0.repeats: At least 1 repeat.");
    const missing = await callTool(client, "study_show", { studyId: "nope" });
    expect(missing).toMatchObject({ ok: false, error: { kind: "refused", exitCode: 3, code: "NOT_FOUND" } });
    const unknownProject = await callTool(client, "study_create", study("elsewhere"));
    expect(unknownProject).toMatchObject({ ok: false, error: { kind: "refused", code: "NOT_FOUND" } });
    const listed = await callTool(client, "projects_list", {});
    expect(listed.ok && (listed.data.projects as { name: string }[]).map((p) => p.name).sort()).toEqual([
      "calendar-http",
      "calendar-stdio",
    ]);
  });

  it("drives a study end to end over stdio and over HTTP: create → wait → verdicts → apply by plan hash", async () => {
    const [viaStdio, viaHttp] = await Promise.all([stdio(), overHttp(ADMIN_TOKEN)]);
    await Promise.all([
      driveStudy(viaStdio, { name: "calendar-stdio", dir: projects[0]?.dir ?? "" }),
      driveStudy(viaHttp, { name: "calendar-http", dir: projects[1]?.dir ?? "" }).then((ids) =>
        feedbackAndBranch(viaHttp, ids),
      ),
    ]);
  }, 900_000);

  it("gives a viewer's token the read-only tools only, and refuses a forged write call, over both transports", async () => {
    const viewers = await Promise.all([stdio({ INVARIANT_TOKEN: viewerToken }), overHttp(viewerToken)]);
    for (const { client } of viewers) {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("study_show");
      expect(names).toContain("apply_plan");
      expect(names.filter((name) => WRITE_TOOLS.includes(name))).toEqual([]);
      const studies = await callTool(client, "study_list", {});
      const [first] = studies.ok ? (studies.data.studies as { id: string }[]) : [];
      const shown = await callTool(client, "study_show", { studyId: first?.id ?? "" });
      const trialId = shown.ok ? ((shown.data.study as { trials: { id: string }[] }).trials[0]?.id ?? "") : "";
      expect(trialId).not.toBe("");
      const forged = await callTool(client, "apply", { trialId, planHash: "a".repeat(64) });
      expect(forged).toMatchObject({ ok: false, error: { kind: "refused", exitCode: 3, code: "FORBIDDEN" } });
      const create = await callTool(client, "study_create", study("calendar-http"));
      expect(create).toMatchObject({ ok: false, error: { kind: "refused", code: "FORBIDDEN" } });
    }
    expect(viewers[0]?.stderr()).toContain("as viewer (read-only tools) on stdio");
  });

  it("answers /mcp only with a token, POST only, within the body limit", async () => {
    const url = `${dashboard?.url ?? ""}/mcp`;
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const anonymous = await fetch(url, { method: "POST", headers, body: JSON.stringify(init) });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { title: string } }).error.title).toBe("Access token required");
    const wrong = await fetch(url, {
      method: "POST",
      headers: { ...headers, authorization: "Bearer v_wrong" },
      body: "{}",
    });
    expect(wrong.status).toBe(401);
    const get = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(get.status).toBe(405);
    const garbage = await fetch(url, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${ADMIN_TOKEN}` },
      body: "{",
    });
    expect(garbage.status).toBe(400);
    // a body announced over the limit is refused before it is read
    const tooLarge = await new Promise<number>((resolve, reject) => {
      const request = http.request(url, {
        method: "POST",
        headers: {
          ...headers,
          authorization: `Bearer ${ADMIN_TOKEN}`,
          "content-length": String(MAX_TRPC_BODY_BYTES + 1),
        },
      });
      request.on("response", (response) => resolve(response.statusCode ?? 0));
      request.on("error", reject);
      request.write("{");
    });
    expect(tooLarge).toBe(413);
  });

  it("says on stderr, and exits 1, when no dashboard runs for the data dir", () => {
    const result = spawnSync(process.execPath, [cli?.bin ?? "", "mcp", "--data-dir", tempDir("mcp-empty")], {
      encoding: "utf8",
      input: "",
      env: { NODE_ENV: "test", PATH: process.env.PATH ?? "", HOME: tempDir("mcp-home") },
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("invariant-web is not running for");
  });
});
