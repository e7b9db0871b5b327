import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { io } from "socket.io-client";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, adminQuery, createViewerLink } from "./keep-result-support";
import { renderedLines, sessionScreenshot, typeLine, waitForTerminal } from "./terminal-support";

/**
 * The browser terminal (issue 12, acceptance): a shell session in direct mode on a project of its own.
 * `echo $((6*7))` prints 42 in the rendered terminal; a smaller, then a phone-wide window changes what
 * `stty size` says in the container; a reload shows the same screen; a page whose socket does not connect says
 * so; a viewer sees the same screen and neither its keystrokes nor input it forges on its socket reach the shell;
 * a second direct session on the project is refused with the holder's name. Then the shell exits (the session is
 * kept, exited) and is finished (its container removed); an unknown session id says so.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(180_000);

const HOLDER = "Ada Terminal";
let state: E2eState;
let admin: BrowserContext;
let page: Page;
let projectName: string;
let projectId = "";
let sessionUrl = "";
let sessionId = "";
/** The `size R C` line the shell reported in the phone-wide window. */
let size = "";

/** Asks the shell for its terminal size (`stty size`) and returns the `size R C` line it printed last. */
async function shellSize(p: Page): Promise<string | undefined> {
  await typeLine(p, 'echo "size $(stty size)"');
  return (await renderedLines(p)).filter((line) => /^size \d+ \d+$/.test(line)).pop();
}

/** The rows × columns the browser terminal renders: its row count, and the width a 300-character line wraps at. */
async function renderedSize(p: Page): Promise<string> {
  await typeLine(p, "printf 'x%.0s' $(seq 300); echo");
  await expect.poll(async () => (await renderedLines(p)).some((line) => /^x{20,}$/.test(line))).toBe(true);
  const lines = await renderedLines(p);
  const columns = Math.max(...lines.filter((line) => /^x+$/.test(line)).map((line) => line.length));
  return `size ${lines.length} ${columns}`;
}

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
  // a project directory of its own, owned by a real user as on a workstation (a direct session runs as its owner)
  const projectDir = path.join(path.dirname(state.projectDir), "terminal-demo");
  fs.cpSync(state.projectDir, projectDir, { recursive: true });
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", "1000:1000", projectDir]);
  projectName = path.basename(projectDir);
});

test.afterAll(async () => {
  // every session this spec started is finished, whatever failed on the way (finishing is idempotent)
  if (sessionId)
    await fetch(`${state.origin}/api/trpc/sessions.finish`, {
      method: "POST",
      headers: { authorization: `Bearer ${state.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ sessionId }),
    }).catch(() => undefined);
  await admin.close();
});

test("a shell session in direct mode: echo $((6*7)) shows 42 in the browser terminal", async () => {
  const projectUrl = await addProjectAndPrepare(
    page,
    state,
    path.join(path.dirname(state.projectDir), "terminal-demo"),
  );
  projectId = new URL(projectUrl).pathname.split("/").pop() ?? "";
  await page.goto(`${state.origin}/sessions`);
  await sessionScreenshot(page, "list-before", true);
  const form = page.getByRole("form", { name: "Start a session" });
  await form.getByRole("combobox", { name: "Project" }).selectOption({ label: projectName });
  await form.getByLabel("A shell").check();
  await form.getByLabel(/^Direct/).check();
  await form.getByLabel("Your name").fill(HOLDER);
  await form.getByRole("button", { name: "Start session" }).click();
  await expect(page).toHaveURL(/\/sessions\/[\w-]+$/);
  sessionUrl = page.url();
  sessionId = new URL(sessionUrl).pathname.split("/").pop() ?? "";
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Shell in ${projectName}`);
  await expect(page.getByTestId("session-state")).toHaveText("running");
  await waitForTerminal(page);
  await typeLine(page, "echo $((6*7))");
  await expect.poll(() => renderedLines(page)).toContain("42");
  await sessionScreenshot(page, "terminal");
});

test("a smaller window, then a phone-wide one: the terminal refits and `stty size` in the container follows", async () => {
  // the TTY is resized a moment after the browser fits the terminal: ask until the shell reports that size
  const sizes: string[] = [];
  for (const viewport of [null, { width: 900, height: 560 }, { width: 390, height: 844 }]) {
    if (viewport) await page.setViewportSize(viewport);
    const rendered = await renderedSize(page);
    await expect.poll(() => shellSize(page)).toBe(rendered);
    const [rows, columns] = rendered.replace("size ", "").split(" ");
    await expect(page.getByText("Terminal", { exact: true }).locator("xpath=..")).toContainText(`${columns}×${rows}`);
    sizes.push(rendered);
  }
  const [wide, smaller, narrow] = sizes.map((line) => line.replace("size ", "").split(" ").map(Number));
  expect(smaller![0]).toBeLessThan(wide![0]!); // fewer rows
  expect(smaller![1]).toBeLessThan(wide![1]!); // fewer columns
  expect(narrow![1]).toBeLessThan(smaller![1]!);
  await sessionScreenshot(page, "narrow");
  size = sizes[2]!;
});

test("a reload shows the earlier output again", async () => {
  await typeLine(page, 'echo "before-reload $((6*7))"');
  await expect.poll(() => renderedLines(page)).toContain("before-reload 42");
  const screen = await renderedLines(page);
  expect(screen).toContain(size);
  await page.reload();
  await waitForTerminal(page);
  await expect.poll(() => renderedLines(page)).toEqual(screen);
  await expect(page.getByTestId("session-state")).toHaveText("running");
});

test("until its socket connects, the terminal page says it is connecting", async () => {
  const waiting = await admin.newPage();
  try {
    // the page's socket opens but the server never answers it
    await waiting.routeWebSocket(/\/socket\.io\//, () => undefined);
    await waiting.goto(sessionUrl);
    await expect(waiting.getByRole("heading", { level: 1 })).toHaveText(`Shell in ${projectName}`);
    await expect(waiting.getByText("Connecting to the session…")).toBeVisible();
    await sessionScreenshot(waiting, "connecting");
  } finally {
    await waiting.close();
  }
});

test("a viewer sees the same screen; its keystrokes, typed or forged on its socket, change nothing", async ({
  browser,
}) => {
  const link = await createViewerLink(page, state, "Terminal watcher");
  await page.goto(sessionUrl);
  await waitForTerminal(page);
  const viewer = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const viewerPage = await viewer.newPage();
    await viewerPage.goto(link);
    await viewerPage.goto(sessionUrl);
    await waitForTerminal(viewerPage);
    await expect(viewerPage.getByText("You are watching read-only")).toBeVisible();
    await expect(viewerPage.getByRole("button", { name: /Finish|Resume|Save installed tools/ })).toHaveCount(0);
    const adminScreen = await renderedLines(page);
    expect(adminScreen).toContain("before-reload 42");
    await expect.poll(() => renderedLines(viewerPage)).toEqual(adminScreen);
    await sessionScreenshot(viewerPage, "viewer");

    await typeLine(viewerPage, "echo typed-by-viewer");
    await forgeViewerInput(viewer);
    // the admin's line reaches the shell after the viewer's input: had that gone through, it would show first
    await typeLine(page, 'echo "admin-$((40+2)) $(stty size)"');
    const answer = `admin-42 ${size.replace("size ", "")}`;
    await expect.poll(() => renderedLines(viewerPage)).toContain(answer);
    await expect.poll(() => renderedLines(page)).toContain(answer);
    expect((await renderedLines(page)).join("\n")).not.toContain("by-viewer");
    await expect.poll(() => renderedLines(viewerPage)).toEqual(await renderedLines(page));
  } finally {
    await viewer.close();
  }
});

/**
 * What the viewer's page never sends, sent on a socket with the viewer's cookie: a resize and a line of input.
 * Detaching and attaching again answers only after the server has handled both (a socket's events are in order).
 */
async function forgeViewerInput(viewer: BrowserContext): Promise<void> {
  const cookie = (await viewer.cookies(state.origin)).map((c) => `${c.name}=${c.value}`).join("; ");
  const forged = io(state.origin, { path: "/socket.io", transports: ["websocket"], extraHeaders: { cookie } });
  const screen = () =>
    new Promise<void>((resolve, reject) => {
      forged.once("terminal.screen", () => resolve());
      forged.once("connect_error", reject);
    });
  try {
    const attached = screen();
    forged.once("connect", () => forged.emit("terminal.attach", { sessionId }));
    await attached;
    forged.emit("terminal.resize", { sessionId, columns: 20, rows: 5 });
    forged.emit("terminal.input", { sessionId, data: "echo forged-by-viewer\r" });
    forged.emit("terminal.detach", { sessionId });
    const again = screen();
    forged.emit("terminal.attach", { sessionId });
    await again;
  } finally {
    forged.close();
  }
}

test("a second direct session on the project is refused with the holder's name", async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${state.origin}/sessions`);
  const form = page.getByRole("form", { name: "Start a session" });
  await form.getByRole("combobox", { name: "Project" }).selectOption({ label: projectName });
  await form.getByLabel("A shell").check();
  await form.getByLabel(/^Direct/).check();
  await form.getByLabel("Your name").fill("Bob Second");
  await form.getByRole("button", { name: "Start session" }).click();
  await expect(form.getByRole("alert")).toContainText(`already has a direct session, held by ${HOLDER}`);
  const sessions = await adminQuery<{ startedBy: string }[]>(state, "sessions.list", { projectId });
  expect(sessions.map((session) => session.startedBy)).toEqual([HOLDER]);
  const row = page.getByRole("table", { name: "Sessions" }).getByRole("row").filter({ hasText: HOLDER });
  // nobody watches it now: it keeps running, detached
  await expect(row.getByTestId("session-state")).toHaveText("detached");
  await expect(row).toContainText("direct");
  await sessionScreenshot(page, "list", true);
});

test("exit keeps the session (exited); Finish removes its container", async () => {
  await page.goto(sessionUrl);
  await waitForTerminal(page);
  await typeLine(page, "exit");
  await expect(page.getByTestId("session-state")).toHaveText("exited");
  await expect(page.getByRole("button", { name: "Resume" })).toBeVisible();
  await sessionScreenshot(page, "exited");
  await page.getByRole("button", { name: "Finish…" }).click();
  await page.getByRole("button", { name: "Finish: remove its container" }).click();
  await expect(page.getByTestId("session-state")).toHaveText("finished");
  await expect(page.getByText("This session worked in the project directory itself")).toBeVisible();
  const containers = execFileSync("docker", ["ps", "-aq", "--filter", `label=invariant.session=${sessionId}`], {
    encoding: "utf8",
  });
  expect(containers.trim()).toBe("");
});

test("an unknown session id answers 404, says so and links back to the list", async () => {
  const response = await page.goto(`${state.origin}/sessions/no-such-session`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "No such session" })).toBeVisible();
  await expect(page.getByText("No session has the id no-such-session")).toBeVisible();
  await expect(page.getByRole("link", { name: "All sessions" })).toHaveAttribute("href", "/sessions");
  await sessionScreenshot(page, "unknown");
});
