import path from "node:path";
import os from "node:os";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { childPids, commandLine } from "./processes";

/**
 * A new user's first minutes with invariant-web, in order, against the real product started by global setup:
 * open the printed URL, add a project (after a typo), look at its settings, check the System page,
 * share a read-only viewer link, and take it back.
 */
test.describe.configure({ mode: "serial" });

let state: E2eState;
let admin: BrowserContext;
let page: Page;
let viewer: BrowserContext | null = null;
let viewerPage: Page;
let viewerLink: string;
const viewerLabel = "Dana from QA";

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext();
  page = await admin.newPage();
});

test.afterAll(async () => {
  await viewer?.close();
  await admin.close();
});

function projectList(p: Page) {
  return p.getByRole("list", { name: "Projects" });
}

async function freshContextWithoutToken(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext();
  expect(await context.cookies()).toEqual([]);
  return context;
}

test("opening the printed URL signs the browser in with a session cookie (not the token), lands on a clean URL and shows the empty project list", async () => {
  expect(state.printedUrl).toBe(`${state.origin}/?token=${state.adminToken}`);
  const response = await page.goto(state.printedUrl);

  await expect(page).toHaveURL(`${state.origin}/projects`);
  expect(new URL(page.url()).search).toBe("");
  const cookies = await admin.cookies(state.origin);
  expect(cookies).toHaveLength(1);
  expect(cookies[0]).toMatchObject({ name: "invariant_session", httpOnly: true, sameSite: "Strict", path: "/" });
  expect(cookies[0]?.value).toMatch(/^s_[\w-]{32,}$/);
  expect(cookies[0]?.value).not.toContain(state.adminToken);
  // persistent: it survives a browser restart for 30 days
  expect(cookies[0]?.expires).toBeGreaterThan(Date.now() / 1000 + 29 * 24 * 3600);
  // no other site may frame the dashboard
  expect(response?.headers()["x-frame-options"]).toBe("DENY");
  expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");

  await expect(page.getByRole("heading", { level: 1, name: "Projects" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "No projects yet" })).toBeVisible();
  await expect(page.getByText("admin", { exact: true })).toBeVisible();
  await expect(page.getByLabel("Project directory on this host")).toBeVisible();
  await expect(projectList(page)).toHaveCount(0);
});

test("a path that does not exist is refused next to the field and nothing is listed", async () => {
  const field = page.getByLabel("Project directory on this host");
  await field.fill(state.missingDir);
  await page.getByRole("button", { name: "Add project" }).click();

  const error = page.locator("#project-path-error");
  await expect(error).toHaveText(
    `${state.missingDir} does not exist. Check the spelling, or create the directory first.`,
  );
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveAccessibleDescription(/does not exist/);
  // the error sits with the field, inside the add form
  await expect(page.getByRole("form", { name: "Add project" }).getByRole("alert")).toHaveText(/does not exist/);
  await expect(page.getByRole("heading", { name: "No projects yet" })).toBeVisible();
  await expect(projectList(page)).toHaveCount(0);
  await expect(field).toHaveValue(state.missingDir); // kept so the user can fix the typo
});

test("the folder list opens where there are folders, goes down and up, and reaches where invariant-web started", async () => {
  await page.getByLabel("Project directory on this host").fill(""); // the picker opens at a typed path
  await page.getByRole("button", { name: "Browse folders…" }).click();
  const picker = page.getByRole("group", { name: "Choose a folder" });
  const where = picker.getByTestId("picker-path");
  await expect(where).not.toBeEmpty();
  // the e2e product was started in the repository: a root of its own beside the home folder
  const repo = path.resolve(import.meta.dirname, "..");
  if ((await where.textContent()) !== repo) await picker.getByRole("button", { name: "Started in" }).click();
  await expect(where).toHaveText(repo);
  await picker.getByRole("list", { name: "Folders" }).getByRole("button", { name: "src/" }).click();
  await expect(where).toHaveText(path.join(repo, "src"));
  await picker.getByRole("button", { name: "Up" }).click();
  await expect(where).toHaveText(repo);
  await expect(picker.getByRole("button", { name: "Up" })).toHaveCount(0); // a root: nothing above to browse
  await page.setViewportSize({ width: 390, height: 844 });
  await picker.screenshot({ path: test.info().outputPath("folder-picker-390.png") });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole("button", { name: "Close the folder list" }).click();
});

test("adding the project directory lists it, and it is still there after a reload", async () => {
  const field = page.getByLabel("Project directory on this host");
  await field.fill(state.projectDir);
  await page.getByRole("button", { name: "Add project" }).click();

  const items = projectList(page).getByRole("listitem");
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText("demo-app");
  await expect(items.first()).toContainText(state.projectDir);
  await expect(page.getByRole("heading", { name: "No projects yet" })).toHaveCount(0);
  await expect(page.locator("#project-path-error")).toHaveCount(0);
  await expect(field).toHaveValue("");
  await expect(field).not.toHaveAttribute("aria-invalid", "true");

  await page.reload();
  await expect(page).toHaveURL(`${state.origin}/projects`);
  await expect(projectList(page).getByRole("listitem")).toHaveCount(1);
  await expect(projectList(page).getByRole("listitem").first()).toContainText(state.projectDir);
});

test("opening the project shows its path and refuses an out-of-range setting next to the field", async () => {
  await projectList(page)
    .getByRole("link", { name: /demo-app/ })
    .click();
  await expect(page).toHaveURL(new RegExp(`^${state.origin}/projects/[^/?#]+$`));
  await expect(page.getByRole("heading", { level: 1, name: "demo-app" })).toBeVisible();
  await expect(page.getByText(state.projectDir, { exact: true })).toBeVisible();

  // the settings are collapsed below the state and the next step: the header's Settings link opens them (#settings,
  // which the reloads below keep)
  await page.getByRole("link", { name: "Settings", exact: true }).click();
  await expect(page).toHaveURL(/#settings$/);
  const settings = page.getByRole("form", { name: "Project settings" });
  const pids = settings.getByLabel("Process limit");
  await expect(pids).toBeEditable();
  const savedPids = await pids.inputValue();
  expect(Number(savedPids)).toBeGreaterThanOrEqual(16);

  await pids.fill("5");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(page.locator("#pids-error")).toHaveText("At least 16 processes.");
  await expect(settings.getByText("Saved.")).toHaveCount(0);

  // nothing was written: after a reload the limit is what it was
  await page.reload();
  await expect(page.getByRole("form", { name: "Project settings" }).getByLabel("Process limit")).toHaveValue(savedPids);
});

test("the container settings: a disk budget under 64 MiB is refused next to its field; Run as root is on and saved", async () => {
  const settings = page.getByRole("form", { name: "Project settings" });
  const disk = settings.getByLabel("Disk budget per trial (GiB)");
  await expect(disk).toHaveValue("10");
  await expect(settings.getByLabel("Open files per process")).toHaveValue("8192");
  await disk.fill("0.01");
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(page.locator("#diskBudgetBytes-error")).toHaveText(
    "At least 64 MiB; a test run alone writes caches and reports.",
  );
  await page.reload();
  const reloaded = page.getByRole("form", { name: "Project settings" });
  const root = reloaded.getByRole("checkbox", { name: "Run as root" });
  // on for a new project: agents install their tools as root inside the container
  await expect(root).toBeChecked();
  await root.uncheck();
  // "Saved." shows only until the refetched project remounts the form: wait for the update's answer instead
  const saved = page.waitForResponse((response) => response.url().includes("projects.update") && response.ok());
  await reloaded.getByRole("button", { name: "Save settings" }).click();
  await saved;
  await page.reload();
  const again = page.getByRole("form", { name: "Project settings" });
  await expect(again.getByRole("checkbox", { name: "Run as root" })).not.toBeChecked();
  await expect(again.getByLabel("Disk budget per trial (GiB)")).toHaveValue("10");
  // back to the default for the tests after this one
  await again.getByRole("checkbox", { name: "Run as root" }).check();
  const restored = page.waitForResponse((response) => response.url().includes("projects.update") && response.ok());
  await again.getByRole("button", { name: "Save settings" }).click();
  await restored;
  await page.reload();
  await expect(
    page.getByRole("form", { name: "Project settings" }).getByRole("checkbox", { name: "Run as root" }),
  ).toBeChecked();
});

test("preparing the environment shows progress and a live log, then version 1 is active; a command adds version 2", async () => {
  const panel = page.getByRole("region", { name: "Environment" });
  await expect(panel.getByText("No environment yet.")).toBeVisible();
  await panel.getByRole("button", { name: "Prepare environment" }).click();
  await expect(panel.getByRole("status", { name: "Build progress" })).toBeVisible();
  await expect(panel.getByLabel("Build log")).toContainText("[1/3] installing the Codex CLI", { timeout: 60_000 });
  const versions = panel.getByRole("table", { name: "Environment versions" });
  await expect(versions.getByRole("row", { name: /v1 active/ })).toContainText("ready", { timeout: 90_000 });
  await expect(panel.getByRole("status", { name: "Build progress" })).toHaveCount(0);

  await panel
    .getByRole("textbox", { name: /Prepare with a command/ })
    .fill("echo tool > /usr/local/bin/e2e-tool && echo done-in-e2e");
  await panel.getByRole("button", { name: "Run" }).click();
  await expect(versions.getByRole("row", { name: /v2 active/ })).toContainText("ready", { timeout: 90_000 });
  await expect(versions.getByRole("row", { name: /^v1 active/ })).toHaveCount(0);
  await expect(versions.getByRole("row", { name: /^v1/ })).toContainText("Make active");
  await panel.getByRole("button", { name: "Make active" }).click();
  await expect(versions.getByRole("row", { name: /v1 active/ })).toBeVisible();
});

test("a request without a token is refused with the access-token page", async ({ browser }) => {
  const stranger = await freshContextWithoutToken(browser);
  try {
    const strangerPage = await stranger.newPage();
    const response = await strangerPage.goto(`${state.origin}/`);
    expect(response?.status()).toBe(401);
    await expect(strangerPage.getByRole("heading", { level: 1, name: "Access token required" })).toBeVisible();
    await expect(strangerPage.getByText("demo-app")).toHaveCount(0);

    const api = await strangerPage.request.get(`${state.origin}/api/trpc/projects.list`);
    expect(api.status()).toBe(401);
    expect(await api.text()).not.toContain(state.projectDir);

    // a wrong token in the URL does not set a cookie either
    const wrong = await strangerPage.goto(`${state.origin}/?token=not-the-token`);
    expect(wrong?.status()).toBe(401);
    expect(await stranger.cookies()).toEqual([]);
  } finally {
    await stranger.close();
  }
});

test("the System page shows the checks and the worker that is online", async () => {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "System" }).click();
  await expect(page).toHaveURL(`${state.origin}/system`);
  await expect(page.getByRole("heading", { level: 1, name: "System" })).toBeVisible();

  const checks = page.getByRole("list", { name: "Checks" }).getByRole("listitem");
  await expect(checks.first()).toBeVisible();
  expect(await checks.count()).toBeGreaterThanOrEqual(3);
  // the Node.js check itself (Gemini CLI's check names the Node.js it runs on, too)
  await expect(checks.filter({ hasText: /^\S+\s*Node\.js\b/ })).toHaveCount(1);
  await expect(checks.filter({ hasText: /Redis/ }).first()).toContainText("✓");

  // the worker row is the launcher's own worker child, by pid
  const rows = page.getByRole("table", { name: "Workers" }).locator("tbody tr");
  await expect(rows).toHaveCount(1);
  const cells = rows.first().getByRole("cell");
  await expect(cells.nth(0)).toHaveText(os.hostname());
  // it shares this dashboard's data dir (a worker on another host joins over HTTP with a token)
  await expect(cells.nth(1)).toHaveText("this host's data dir");
  const workerPid = Number(await cells.nth(2).innerText());
  const workerChildren = childPids(state.launcherPid).filter((pid) => / worker /.test(` ${commandLine(pid)} `));
  expect(workerChildren).toEqual([workerPid]);
  // its room, from its heartbeat: slots, trials, taking jobs, CPUs, memory, the data dir's free disk
  await expect(cells.nth(3)).toHaveText(/^\d+ of [1-9]\d*$/);
  await expect(cells.nth(4)).toHaveText(/^\d+$/);
  await expect(cells.nth(5)).toHaveText(/^(yes|no: .+)$/);
  await expect(cells.nth(6)).toHaveText(String(os.availableParallelism()));
  await expect(cells.nth(7)).toHaveText(/^[\d.]+ [KMGT]iB of [\d.]+ [MGT]iB$/);
  await expect(cells.nth(8)).toHaveText(/^[\d.]+ [KMGT]iB$/);
});

test("an admin creates a viewer link; the viewer sees the projects read-only", async ({ browser }) => {
  const form = page.getByRole("form", { name: "Create viewer link" });
  await form.getByLabel("Label").fill(viewerLabel);
  await form.getByLabel("Expires").selectOption({ label: "Expires in 7 days" });
  await form.getByRole("button", { name: "Create viewer link" }).click();

  const shown = page.getByTestId("new-viewer-link");
  await expect(shown).toHaveText(new RegExp(`^${state.origin}/\\?token=\\S+$`));
  viewerLink = (await shown.innerText()).trim();
  const viewerToken = new URL(viewerLink).searchParams.get("token");
  expect(viewerToken).toBeTruthy();
  expect(viewerToken).not.toBe(state.adminToken);
  await expect(page.getByRole("button", { name: `Revoke ${viewerLabel}` })).toBeVisible();
  await expect(
    page.getByRole("list", { name: "Viewer links" }).getByRole("listitem").filter({ hasText: viewerLabel }),
  ).toContainText("expires");

  viewer = await freshContextWithoutToken(browser);
  viewerPage = await viewer.newPage();
  await viewerPage.goto(viewerLink);
  await expect(viewerPage).toHaveURL(`${state.origin}/projects`);
  await expect(viewerPage.getByText("read-only viewer")).toBeVisible();
  await expect(projectList(viewerPage).getByRole("listitem")).toHaveCount(1);
  await expect(projectList(viewerPage).getByRole("listitem").first()).toContainText(state.projectDir);
  // the role is known (badge shown), so the absence of the add form is real
  await expect(viewerPage.getByRole("form", { name: "Add project" })).toHaveCount(0);
  await expect(viewerPage.getByRole("button", { name: "Add project" })).toHaveCount(0);
  await expect(viewerPage.getByLabel("Project directory on this host")).toHaveCount(0);
});

test("a viewer's direct POST to projects.add is refused with FORBIDDEN and adds nothing", async () => {
  const result = await viewerPage.evaluate(async () => {
    const response = await fetch("/api/trpc/projects.add", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hostPath: "/tmp" }),
    });
    return { status: response.status, body: (await response.json()) as { error?: { data?: { code?: string } } } };
  });
  expect(result.status).toBe(403);
  expect(result.body.error?.data?.code).toBe("FORBIDDEN");

  await page.goto(`${state.origin}/projects`);
  await expect(projectList(page).getByRole("listitem")).toHaveCount(1);
  await expect(page.getByText("/tmp", { exact: true })).toHaveCount(0);
});

test("revoking the viewer link locks the viewer out on the next page load", async () => {
  await page.goto(`${state.origin}/system`);
  await page.getByRole("button", { name: `Revoke ${viewerLabel}` }).click();
  const entry = page.getByRole("list", { name: "Viewer links" }).getByRole("listitem").filter({ hasText: viewerLabel });
  await expect(entry).toContainText("revoked");
  await expect(page.getByRole("button", { name: `Revoke ${viewerLabel}` })).toHaveCount(0);

  const response = await viewerPage.reload();
  expect(response?.status()).toBe(401);
  await expect(viewerPage.getByRole("heading", { level: 1, name: "Access token required" })).toBeVisible();

  // the link itself no longer works either
  const again = await viewerPage.goto(viewerLink);
  expect(again?.status()).toBe(401);
  await expect(viewerPage.getByRole("heading", { level: 1, name: "This link is not valid" })).toBeVisible();

  // the admin is unaffected
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "System" })).toBeVisible();
});

test("the System page lists signed-in browsers, and revoking one signs that browser out at once", async ({
  browser,
}) => {
  // another admin browser, told apart by its user agent
  const other = await browser.newContext({
    userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko Firefox/140.0",
  });
  try {
    const otherPage = await other.newPage();
    await otherPage.goto(state.printedUrl);
    await expect(otherPage).toHaveURL(`${state.origin}/projects`);

    await page.goto(`${state.origin}/system`);
    const rows = page.getByRole("table", { name: "Signed-in browsers" }).locator("tbody tr");
    await expect(rows.filter({ hasText: "(this browser)" })).toHaveCount(1);
    await expect(rows.filter({ hasText: "(this browser)" })).toContainText("Admin");
    const firefox = rows.filter({ hasText: "Firefox on Linux" });
    await expect(firefox).toHaveCount(1);
    await firefox.getByRole("button", { name: "Sign out Admin, Firefox on Linux" }).click();
    await expect(firefox).toHaveCount(0);

    const response = await otherPage.reload();
    expect(response?.status()).toBe(401);
    await expect(otherPage.getByRole("heading", { level: 1, name: "Access token required" })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "System" })).toBeVisible();
  } finally {
    await other.close();
  }
});
