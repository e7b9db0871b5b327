import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { copyCalendarProject } from "./keep-result-support";

/**
 * The project page leads with the state and the next step (issue 26, point 4): the project's status — its
 * environment, or its folder when that is gone — and the one action the state calls for (Prepare environment,
 * New study, Relink…) come before the studies, sessions and apply history; the settings are collapsed at the end,
 * open from the header's Settings link (#settings), keep an unsaved draft while closed, and save. The new study
 * form's Create study never stands disabled without its reason next to it (point 13), and the form fits 390 px.
 * Screenshots at 1280 and 390 px in /tmp/shots-project-page (PROJECT_PAGE_SCREENSHOTS).
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(240_000);

const SHOTS = process.env.PROJECT_PAGE_SCREENSHOTS ?? "/tmp/shots-project-page";
const NAME = "project-page";
const WIDTHS = [1280, 390] as const;
let state: E2eState;
let admin: BrowserContext;
let page: Page;
let projectDir: string;
let projectUrl: string;
let projectId: string;

async function shot(name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  await page.screenshot({ path: path.join(SHOTS, `${name}-full.png`), fullPage: true });
}

async function setWidth(width: number): Promise<void> {
  await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
}

async function topOf(locator: Locator): Promise<number> {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`${locator.toString()} has no box`);
  return box.y;
}

/** Each region starts below the one before it. */
async function expectInOrder(regions: Locator[]): Promise<void> {
  const tops = [];
  for (const region of regions) tops.push(await topOf(region));
  expect(tops, "regions from the top of the page").toEqual([...tops].sort((a, b) => a - b));
}

/** Nothing is wider than the window: the page does not scroll sideways (the message names what spills out). */
async function expectNoSidewaysScroll(): Promise<void> {
  const widths = await page.evaluate(() => {
    const scrolls = (element: Element) => ["auto", "scroll", "hidden"].includes(getComputedStyle(element).overflowX);
    const insideScroller = (element: Element) => {
      for (let up = element.parentElement; up && up !== document.body; up = up.parentElement)
        if (scrolls(up)) return true;
      return false;
    };
    // past the right edge outside any box that scrolls, or positioned (a scroll box clips it only when it is the
    // element's containing block), e.g. an sr-only header in a wide table
    const spilling = [...document.body.querySelectorAll("*")].filter(
      (element) =>
        element.getBoundingClientRect().right > innerWidth + 0.5 &&
        (!insideScroller(element) || ["absolute", "fixed"].includes(getComputedStyle(element).position)),
    );
    const describe = (element: Element) =>
      `${element.tagName.toLowerCase()}.${[...element.classList].slice(0, 5).join(".")} "${(element.textContent ?? "").slice(0, 30)}"`;
    return {
      page: document.documentElement.scrollWidth,
      window: innerWidth,
      spilling: spilling.slice(0, 4).map(describe),
    };
  });
  expect(widths.page, `page width; spilling: ${widths.spilling.join("; ")}`).toBeLessThanOrEqual(widths.window);
}

const region = (name: string) => page.getByRole("region", { name, exact: true });
const settingsForm = () => page.getByRole("form", { name: "Project settings" });
const createButton = () => page.getByRole("button", { name: "Create study" });
const createReason = () => page.getByTestId("create-study-reason");

/** Holds the API requests whose procedures match until `release` is called (then they, and later ones, pass). */
async function holdRequests(procedure: string): Promise<() => void> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const matches = (url: URL) => url.pathname.startsWith("/api/trpc/") && url.pathname.includes(procedure);
  await page.route(matches, async (route) => {
    await gate;
    await route.continue();
  });
  return open;
}

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
  projectDir = copyCalendarProject(state, NAME);
  await page.goto(`${state.origin}/projects`);
  await page.getByLabel("Project directory on this host").fill(projectDir);
  await page.getByRole("button", { name: "Add project" }).click();
  const link = page.getByRole("list", { name: "Projects" }).getByRole("link", { name: new RegExp(NAME) });
  await expect(link).toBeVisible();
  projectUrl = `${state.origin}${await link.getAttribute("href")}`;
  projectId = new URL(projectUrl).pathname.split("/").pop() ?? "";
});

test.afterAll(async () => {
  await admin.close();
});

for (const width of WIDTHS) {
  test(`at ${width} px a project without an environment leads with its state and Prepare environment`, async () => {
    await setWidth(width);
    await page.goto(projectUrl);
    const status = region("Status");
    await expect(status.getByTestId("project-state")).toHaveText("No environment yet");
    const action = status.getByTestId("project-next-action");
    await expect(action.getByRole("button")).toHaveText(["Prepare environment"]);
    await expect(action.getByRole("link")).toHaveCount(0);
    await expect(action.getByRole("button", { name: "Prepare environment" })).toBeInViewport();
    await expectInOrder([status, region("Studies"), region("Sessions"), region("Apply history"), region("Settings")]);
    // the settings are there, collapsed: not the first thing on the page
    await expect(region("Settings")).toBeVisible();
    await expect(settingsForm()).toBeHidden();
    await expectNoSidewaysScroll();
    await shot(`no-environment-${width}`);
  });
}

test("the new study form of a project without an environment says why Create study is disabled", async () => {
  await setWidth(1280);
  await page.goto(`${state.origin}/studies/new?projectId=${projectId}`);
  await expect(createButton()).toBeDisabled();
  await expect(createReason()).toHaveText(
    `${NAME} has no ready environment. Prepare one on the project page before starting a study.`,
  );
  await expect(createButton()).toHaveAttribute("aria-describedby", "create-study-reason");
});

test("Prepare environment from the status: it builds there, a waiting form turns on by itself, then New study leads", async () => {
  await setWidth(1280);
  await page.goto(projectUrl);
  const status = region("Status");
  await status.getByRole("button", { name: "Prepare environment" }).click();
  await expect(status.getByTestId("project-state")).toHaveText("Environment v1 building");
  await expect(status.getByRole("status", { name: "Build progress" })).toBeVisible();
  await expect(status.getByTestId("project-next-action").getByRole("button")).toHaveCount(0);

  // a new study form opened meanwhile waits for it, says so, and turns Create study on when it is ready
  const form = await admin.newPage();
  try {
    await form.goto(`${state.origin}/studies/new?projectId=${projectId}`);
    await expect(form.getByTestId("create-study-reason")).toHaveText(
      "Waiting for environment v1 to be ready: it is being prepared, and Create study turns on by itself when it is.",
    );
    await expect(form.getByRole("button", { name: "Create study" })).toBeDisabled();
    await expect(form.getByRole("button", { name: "Create study" })).toBeEnabled({ timeout: 150_000 });
    await expect(form.getByTestId("create-study-reason")).toHaveCount(0);
  } finally {
    await form.close();
  }

  await expect(status.getByTestId("project-state")).toHaveText("Environment v1 ready", { timeout: 30_000 });
  for (const width of WIDTHS) {
    await setWidth(width);
    await page.reload();
    const action = region("Status").getByTestId("project-next-action");
    await expect(action.getByRole("link")).toHaveText(["New study"]);
    await expect(action.getByRole("button")).toHaveCount(0);
    await expect(action.getByRole("link", { name: "New study" })).toBeInViewport();
    await expectInOrder([
      region("Status"),
      region("Studies"),
      region("Sessions"),
      region("Apply history"),
      region("Environment"),
      region("Settings"),
    ]);
    await expect(settingsForm()).toBeHidden();
    await expectNoSidewaysScroll();
    await shot(`ready-${width}`);
  }
});

test("the settings open from the header's link, keep an unsaved draft while closed, and save", async () => {
  await setWidth(1280);
  await page.goto(projectUrl);
  await expect(settingsForm()).toBeHidden();
  await page.getByRole("link", { name: "Settings", exact: true }).click();
  await expect(page).toHaveURL(`${projectUrl}#settings`);
  await expect(settingsForm()).toBeVisible();
  const pids = settingsForm().getByLabel("Process limit");
  const before = await pids.inputValue();
  const next = String(Number(before) + 128);
  await pids.fill(next);

  // closed with an unsaved change: the section says so, and the draft is still there when it opens again
  const summary = region("Settings").locator("summary");
  await summary.click();
  await expect(settingsForm()).toBeHidden();
  await expect(region("Settings").getByTestId("settings-unsaved")).toHaveText("· unsaved changes");
  await summary.click();
  await expect(pids).toHaveValue(next);
  await expect(region("Settings").getByTestId("settings-unsaved")).toHaveCount(0);
  await setWidth(390);
  await region("Settings").scrollIntoViewIfNeeded();
  await shot("settings-open-390");
  await setWidth(1280);

  const saved = page.waitForResponse((response) => response.url().includes("projects.update") && response.ok());
  await settingsForm().getByRole("button", { name: "Save settings" }).click();
  await saved;
  await summary.click();
  await expect(region("Settings").getByTestId("settings-unsaved")).toHaveCount(0);
  // #settings opens the section on a fresh load too
  await page.reload();
  await expect(settingsForm()).toBeVisible();
  await expect(settingsForm().getByLabel("Process limit")).toHaveValue(next);
  await expect(summary, "scrolled to once the panels above have loaded").toBeInViewport();
  await shot("settings-open-1280");
});

test("Create study says why while it waits: access, the project's defaults, the creation itself", async () => {
  await setWidth(1280);
  // a fresh load under load: the role is not known yet
  let release = await holdRequests("system.whoami");
  await page.goto(`${state.origin}/studies/new?projectId=${projectId}`);
  await expect(createButton()).toBeDisabled();
  await expect(createReason()).toHaveText("Checking your access…");
  release();
  await expect(createButton()).toBeEnabled();
  await expect(createReason()).toHaveCount(0);

  // from the project page's New study (the role known): the project's defaults are slow to come
  await page.goto(projectUrl);
  release = await holdRequests("studies.defaults");
  await region("Status").getByRole("link", { name: "New study" }).click();
  await expect(page).toHaveURL(/\/studies\/new/);
  await expect(createButton()).toBeDisabled();
  await expect(createReason()).toHaveText("Loading the project's defaults (environment, model, limits)…");
  await shot("new-study-loading-1280");
  release();
  await expect(createButton()).toBeEnabled();

  await expect(createReason()).toHaveCount(0);

  // while the study is being created (held here, then refused: no study is made)
  let refuse!: () => void;
  const refused = new Promise<void>((resolve) => (refuse = resolve));
  await page.route(
    (url) => url.pathname.includes("studies.create"),
    async (route) => {
      await refused;
      await route.abort();
    },
  );
  await page.getByLabel("Title").fill("Held");
  await page.getByLabel("Task").fill("Implement src/calendar.js.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Model 1").fill("calendar-fix-all");
  await createButton().click();
  const creating = page.getByRole("button", { name: "Creating study…" });
  await expect(creating).toBeDisabled();
  await expect(createReason()).toHaveText(
    "Creating the study: freezing a snapshot of the project and capturing its test files…",
  );
  await expect(creating).toHaveAttribute("aria-describedby", "create-study-reason");
  refuse();
  await expect(createButton()).toBeEnabled();
  await expect(createReason()).toHaveCount(0);
  await page.unrouteAll({ behavior: "ignoreErrors" });
});

for (const width of WIDTHS) {
  test(`at ${width} px the new study form with a fixed test file fits the window`, async () => {
    await setWidth(width);
    await page.goto(`${state.origin}/studies/new?projectId=${projectId}`);
    await expect(createButton()).toBeEnabled();
    await page.getByLabel("Find test files").fill("calendar.test");
    await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
    await expect(page.getByTestId("chosen-test-file")).toHaveCount(1);
    await shot(`new-study-${width}`);
    await expectNoSidewaysScroll();
    const row = await page.getByTestId("chosen-test-file").boundingBox();
    expect((row?.x ?? 0) + (row?.width ?? Infinity), "the test file's row ends inside the window").toBeLessThanOrEqual(
      width,
    );
  });
}

for (const width of WIDTHS) {
  test(`at ${width} px a project whose folder is gone leads with the folder and Relink…`, async () => {
    await setWidth(width);
    const moved = `${projectDir}-moved`;
    fs.renameSync(projectDir, moved);
    try {
      await page.goto(projectUrl);
      const banner = page.getByRole("alert", { name: "Project folder" });
      await expect(banner).toContainText(`The folder ${projectDir} is gone.`);
      await expect(banner.getByRole("button", { name: "Relink…" })).toBeInViewport();
      // the folder is the state: no environment status with New study beside it
      await expect(region("Status")).toHaveCount(0);
      await expectInOrder([banner, region("Studies"), region("Sessions"), region("Apply history"), region("Settings")]);
      await expect(settingsForm()).toBeHidden();
      await expectNoSidewaysScroll();
      await shot(`folder-gone-${width}`);
    } finally {
      fs.renameSync(moved, projectDir);
    }
  });
}
