import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { startSecondInstance, type SecondInstance } from "./second-instance";

/**
 * A new user without model access (issue 13): a fresh data dir opens on the setup checklist; "Try the
 * demo" runs the demo study on the bundled scripted model; a key stored on the Setup page is what a new
 * study's trials bring to the provider, and it shows up nowhere else; a viewer can neither read nor change it.
 */
test.describe.configure({ mode: "serial" });

const KEY = "sk-e2e-STORED-ON-SETUP-7f3a91";
let product: SecondInstance;
let admin: BrowserContext;
let page: Page;
let projectId = "";
let demoStudyId = "";

async function api<T>(procedure: string, input: unknown, method: "GET" | "POST" = "GET"): Promise<T> {
  const query = method === "GET" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
  const response = await fetch(`${product.origin}/api/trpc/${procedure}${query}`, {
    method,
    headers: { authorization: `Bearer ${product.adminToken}`, "content-type": "application/json" },
    ...(method === "POST" ? { body: JSON.stringify(input) } : {}),
  });
  const text = await response.text();
  expect(response.status, `${procedure}: ${text.slice(0, 300)}`).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

test.beforeAll(async ({ browser }) => {
  product = await startSecondInstance();
  admin = await browser.newContext();
  page = await admin.newPage();
});

test.afterAll(async () => {
  await admin?.close();
  await product?.stop();
});

test("a fresh data dir with no credentials opens on the setup checklist, each check with its fix", async () => {
  await page.goto(product.printedUrl);
  await expect(page).toHaveURL(`${product.origin}/setup`);
  await expect(page.getByRole("heading", { level: 1, name: "Setup" })).toBeVisible();
  const checklist = page.getByRole("list", { name: "Setup checklist" });
  // what is missing comes first; the ready checks fold into one line below it
  await expect(checklist.getByRole("listitem").first()).toHaveAttribute("aria-label", "Model access");
  await expect(checklist.getByRole("listitem", { name: "Model access" })).toContainText("missing");
  await expect(checklist.getByRole("listitem", { name: "Model access" })).toContainText("invariant-web login");
  const folded = page.getByTestId("ready-checks");
  await expect(folded).toContainText(/\d+ more checks ready: .*Docker engine/);
  await expect(page.getByRole("list", { name: "Ready checks" })).toBeHidden();
  await folded.locator("summary").click();
  for (const ready of ["Docker engine", "Redis", "Codex CLI", "Base image"])
    await expect(page.getByRole("list", { name: "Ready checks" }).getByRole("listitem", { name: ready })).toContainText(
      "ready",
    );
  // the demo needs no model: it is offered right here
  await expect(page.getByRole("button", { name: "Try the demo" })).toBeVisible();
  await expect(page.getByLabel("OpenAI API key")).toHaveAttribute("type", "password");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath("setup-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("Try the demo: the demo study runs on the scripted model to 23/23, 13/23 and 0/23", async () => {
  test.setTimeout(300_000);
  await page.getByRole("link", { name: "Continue to projects anyway" }).click();
  await expect(page).toHaveURL(`${product.origin}/projects`);
  await page.getByRole("button", { name: "Try the demo" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/, { timeout: 180_000 });
  demoStudyId = page.url().split("/").at(-1)!;
  await expect(page.getByTestId("baseline")).toContainText("0/23", { timeout: 90_000 });
  const row = (choice: string) => page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);
  for (const choice of ["1", "2", "3"])
    await expect(row(choice)).toHaveAttribute("data-outcome", "completed", { timeout: 180_000 });
  // low, medium, high effort of the scripted model: fix-none, fix-some, fix-all
  await expect(row("1").getByTestId("trial-tests")).toHaveText("0/23");
  await expect(row("2").getByTestId("trial-tests")).toHaveText("13/23");
  await expect(row("3").getByTestId("trial-tests")).toHaveText("23/23");
  // on a 390 px phone the table scrolls sideways and the verdict column stays in view
  await page.setViewportSize({ width: 390, height: 844 });
  const trials = page.getByRole("table", { name: "Trials" });
  await trials.evaluate((table) => table.parentElement?.scrollIntoView({ block: "center" }));
  expect(await trials.evaluate((table) => table.scrollWidth > (table.parentElement?.clientWidth ?? 0))).toBe(true);
  for (const choice of ["1", "2", "3"]) {
    const box = await row(choice).getByTestId("trial-tests").boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390, `tests cell of trial ${choice}: ${JSON.stringify(box)}`).toBe(
      true,
    );
  }
  await page.screenshot({ path: test.info().outputPath("demo-study-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  // the scripted model is served by the worker: nothing reached the provider, no credential was used
  expect(product.authorizations).toEqual([]);
  const again = await api<{ studyId: string; projectId: string; reopened: boolean }>(
    "demo.start",
    { task: "calendar" },
    "POST",
  );
  expect(again).toMatchObject({ studyId: demoStudyId, reopened: true });
  projectId = again.projectId;
});

test("a key stored on the Setup page is what a new study's trials bring to the provider", async () => {
  test.setTimeout(240_000);
  await page.goto(`${product.origin}/setup`);
  await page.getByLabel("OpenAI API key").fill(KEY);
  await page.getByRole("button", { name: "Store OpenAI key" }).click();
  await expect(page.getByText("Stored. New runs use it; it is not shown again.")).toBeVisible();
  await expect(page.getByLabel("Replace the stored OpenAI API key")).toHaveValue("");
  await expect(
    page.getByRole("list", { name: "Setup checklist" }).getByRole("listitem", { name: "Model access" }),
  ).toContainText("Codex usable (OpenAI access)");
  const study = await api<{ id: string }>(
    "studies.create",
    {
      projectId,
      title: "With the stored key",
      taskPrompt: "Implement every function in src/calendar.js so that the tests in test/ pass.",
      testCommand: "node --test",
      testFiles: [{ source: "project", path: "test/calendar.test.js" }],
      configurations: [{ harness: "codex", model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 }],
    },
    "POST",
  );
  await expect
    .poll(async () => (await api<{ state: string }>("studies.get", { studyId: study.id })).state, { timeout: 200_000 })
    .toBe("done");
  const finished = await api<{ trials: { verdict: { passed: number } | null }[] }>("studies.get", {
    studyId: study.id,
  });
  expect(finished.trials[0]?.verdict?.passed).toBe(23);
  expect(product.authorizations.length).toBeGreaterThan(0);
  expect(new Set(product.authorizations)).toEqual(new Set([`Bearer ${KEY}`]));

  // nowhere else: not in the database, the data dir (but its key file), the log, or any page or answer
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) return [];
      return entry.isDirectory() ? files(full) : [full];
    });
  const keyFile = path.join(product.dataDir, "credentials", "openai-api-key");
  for (const file of files(product.dataDir).filter((f) => f !== keyFile && !f.endsWith(".sock")))
    expect(fs.readFileSync(file).includes(Buffer.from(KEY)), file).toBe(false);
  expect(product.stderr()).not.toContain(KEY);
  for (const pathname of ["/setup", "/projects", `/studies/${study.id}`, `/studies/${demoStudyId}`]) {
    await page.goto(`${product.origin}${pathname}`);
    await page.waitForLoadState("networkidle");
    expect(await page.content(), pathname).not.toContain(KEY);
  }
  expect(JSON.stringify(await api("setup.status", undefined))).not.toContain(KEY);
});

test("a viewer sees the checklist without the key and cannot store or remove one", async ({ browser }) => {
  const link = await api<{ url: string }>("system.createViewerLink", { label: "Setup viewer" }, "POST");
  const viewer = await browser.newContext();
  const viewerPage = await viewer.newPage();
  await viewerPage.goto(link.url);
  await viewerPage.goto(`${product.origin}/setup`);
  await expect(viewerPage.getByText("Only the admin can change model access.")).toBeVisible();
  await expect(viewerPage.locator('input[type="password"]')).toHaveCount(0);
  expect(await viewerPage.content()).not.toContain(KEY);
  const answers = await viewerPage.evaluate(async () => {
    const call = async (procedure: string, input: unknown) => {
      const response = await fetch(`/api/trpc/${procedure}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      return `${response.status} ${await response.text()}`;
    };
    const status = await fetch("/api/trpc/setup.status").then((r) => r.text());
    return {
      store: await call("setup.storeApiKey", { apiKey: "sk-viewer-tries" }),
      remove: await call("setup.removeApiKey", { provider: "openai" }),
      status,
    };
  });
  expect(answers.store).toMatch(/^403 .*FORBIDDEN/);
  expect(answers.remove).toMatch(/^403 .*FORBIDDEN/);
  expect(answers.status).toContain('"source":"stored-key"');
  expect(answers.status).not.toContain(KEY);
  // a project's settings are text for a viewer, not inputs without a Save button
  await viewerPage.goto(`${product.origin}/projects/${projectId}#settings`); // the section opens for #settings
  const settings = viewerPage.getByRole("region", { name: "Settings" });
  await expect(settings.getByRole("definition").first()).toHaveText("calendar (demo)");
  await expect(settings.getByText("Network mode")).toBeVisible();
  await expect(settings.locator("input, select, textarea")).toHaveCount(0);
  await expect(settings.getByRole("button", { name: "Save settings" })).toHaveCount(0);
  await viewer.close();
});

test("the project list shows each environment's state and the next step", async () => {
  await page.goto(`${product.origin}/projects`);
  await expect(page.getByTestId("project-environment")).toHaveText("environment v1 ready · next: start a study");
});

test("System page events name their project and study with links", async () => {
  await page.goto(`${product.origin}/system`);
  const events = page.getByRole("list", { name: "Recent events" });
  await expect(events.getByRole("link", { name: "calendar (demo)" }).first()).toBeVisible();
  await expect(events.getByRole("link", { name: "With the stored key" }).first()).toHaveAttribute(
    "href",
    /^\/studies\/[\w-]+$/,
  );
});

test("adding a project offers a folder picker over the home directory", async () => {
  await page.goto(`${product.origin}/projects`);
  await page.getByRole("button", { name: "Browse folders…" }).click();
  const picker = page.getByRole("group", { name: "Choose a folder" });
  const home = (await picker.getByTestId("picker-path").innerText()).trim();
  expect(home.startsWith("/")).toBe(true);
  await picker.getByRole("button", { name: "Use this folder" }).click();
  await expect(page.getByLabel("Project directory on this host")).toHaveValue(home);
  await expect(picker).toHaveCount(0);
});

test("Ctrl-K opens the command palette: type part of a name, Enter goes there", async () => {
  await page.goto(`${product.origin}/studies`);
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Command palette" });
  await expect(palette).toBeVisible();
  await palette.getByRole("textbox").fill("calendar project");
  await expect(palette.getByRole("option")).toHaveCount(1);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(`${product.origin}/projects/${projectId}`);
  await expect(palette).toHaveCount(0);
  // the nav's button opens it too; Esc closes it
  await page.getByRole("button", { name: "Go to a project, study or page (Ctrl-K)" }).click();
  await palette.getByRole("textbox").fill("fix the calendar");
  await expect(palette.getByRole("option").first()).toContainText("Demo: fix the calendar");
  await page.keyboard.press("Escape");
  await expect(palette).toHaveCount(0);
});
