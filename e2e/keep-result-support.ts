import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, type Locator, type Page } from "@playwright/test";
import type { E2eState } from "./e2e-state";

/** One entry of a whole-tree listing: type, permission bits, and the content's sha256 (a link's target). */
export type TreeListing = Record<string, string>;

/** Every path under `root` (directories included) with its type, mode and content hash; `skip` names top-level entries to leave out. */
export function listTree(root: string, skip: readonly string[] = []): TreeListing {
  const listing: TreeListing = {};
  const visit = (relative: string) => {
    for (const name of fs.readdirSync(path.join(root, relative)).sort()) {
      const rel = relative ? `${relative}/${name}` : name;
      if (!relative && skip.includes(name)) continue;
      const full = path.join(root, rel);
      const stat = fs.lstatSync(full);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isSymbolicLink()) listing[rel] = `symlink ${mode} ${fs.readlinkSync(full)}`;
      else if (stat.isDirectory()) {
        listing[rel] = `dir ${mode}`;
        visit(rel);
      } else listing[rel] = `file ${mode} ${createHash("sha256").update(fs.readFileSync(full)).digest("hex")}`;
    }
  };
  visit("");
  return listing;
}

/** Only the files (and links) of a listing, without modes: what a project "has" regardless of umask. */
export function contentOf(listing: TreeListing): Record<string, string> {
  return Object.fromEntries(
    Object.entries(listing)
      .filter(([, entry]) => !entry.startsWith("dir "))
      .map(([rel, entry]) => [rel, entry.replace(/^(\w+) \d+ /, "$1 ")]),
  );
}

/** `node --test` on the host, in the project directory: the counts of its summary. */
export function runHostTests(projectDir: string): { pass: number; fail: number; output: string } {
  const result = spawnSync(process.execPath, ["--test", "test/"], { cwd: projectDir, encoding: "utf8" });
  const output = `${result.stdout}${result.stderr}`;
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(output)?.[1] ?? NaN);
  return { pass: count("pass"), fail: count("fail"), output };
}

/** A tRPC query answered for the admin token (plain JSON: the client uses no transformer). */
export async function adminQuery<T>(state: E2eState, procedure: string, input: unknown): Promise<T> {
  const url = `${state.origin}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${state.adminToken}` } });
  expect(response.status, `${procedure} answered ${response.status}`).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

/** A fresh copy of the calendar fixture beside the other e2e projects, so this spec owns its project directory. */
export function copyCalendarProject(state: E2eState, name: string): string {
  const dir = path.join(path.dirname(state.calendarDir), name);
  fs.cpSync(path.join(process.cwd(), "fixtures", "calendar-project"), dir, { recursive: true });
  return dir;
}

/** Adds the project through the UI and prepares its environment (version 1). */
export async function addProjectAndPrepare(page: Page, state: E2eState, projectDir: string): Promise<string> {
  const name = path.basename(projectDir);
  await page.goto(`${state.origin}/projects`);
  await page.getByLabel("Project directory on this host").fill(projectDir);
  await page.getByRole("button", { name: "Add project" }).click();
  await page
    .getByRole("list", { name: "Projects" })
    .getByRole("link", { name: new RegExp(name) })
    .click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  const projectUrl = page.url();
  const panel = page.getByRole("region", { name: "Environment" });
  await panel.getByRole("button", { name: "Prepare environment" }).click();
  await expect(
    panel.getByRole("table", { name: "Environment versions" }).getByRole("row", { name: /v1 active/ }),
  ).toContainText("ready", { timeout: 120_000 });
  return projectUrl;
}

/** The calendar study of three mock models (fix-all, fix-some, fix-none), created from the form; waits for its trials. */
export async function createCalendarStudy(page: Page, projectName: string, title: string): Promise<string> {
  await page.getByRole("link", { name: "New study" }).first().click();
  await expect(page).toHaveURL(/\/studies\/new/);
  await page.getByRole("combobox", { name: "Project" }).selectOption({ label: projectName });
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
  await page.getByLabel("Model 1").fill("calendar-fix-all");
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Model 2").fill("calendar-fix-some");
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Model 3").fill("calendar-fix-none");
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
  const row = (choice: string) => page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);
  for (const choice of ["1", "2", "3"])
    await expect(row(choice)).toHaveAttribute("data-state", "succeeded", { timeout: 240_000 });
  await expect(row("1").getByTestId("trial-tests")).toHaveText("23/23");
  return page.url();
}

/** Where screenshots for docs/review-and-apply.md go when KEEP_RESULT_SCREENSHOTS names a directory; else nowhere. */
export async function shoot(
  page: Page,
  name: string,
  options: { fullPage?: boolean; top?: boolean; width?: number; scrollTo?: Locator; element?: Locator } = {},
): Promise<void> {
  const dir = process.env.KEEP_RESULT_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const viewport = page.viewportSize();
  if (options.width) await page.setViewportSize({ width: options.width, height: 900 });
  if (options.top) await page.evaluate(() => window.scrollTo(0, 0));
  if (options.scrollTo) await options.scrollTo.evaluate((element) => element.scrollIntoView());
  const file = path.join(dir, `${name}.png`);
  if (options.element) await options.element.screenshot({ path: file });
  else await page.screenshot({ path: file, fullPage: options.fullPage ?? false });
  if (options.width && viewport) await page.setViewportSize(viewport);
}

/** The rendered text lines of one side of a Monaco diff editor. */
export function monacoSide(editor: Locator, side: "original" | "modified"): Locator {
  return editor.locator(`.editor.${side} .view-lines`);
}

/** Creates a viewer link on the System page (as the admin) and returns it. */
export async function createViewerLink(page: Page, state: E2eState, label: string): Promise<string> {
  await page.goto(`${state.origin}/system`);
  const form = page.getByRole("form", { name: "Create viewer link" });
  await form.getByLabel("Label").fill(label);
  await form.getByRole("button", { name: "Create viewer link" }).click();
  return (await page.getByTestId("new-viewer-link").innerText()).trim();
}

/** Calls tRPC mutations from the page (its cookie, its role): "<HTTP status> <tRPC code>" for each. */
export async function postMutations(
  page: Page,
  calls: Record<string, [procedure: string, input: unknown]>,
): Promise<Record<string, string>> {
  return page.evaluate(async (entries) => {
    const answers: Record<string, string> = {};
    for (const [name, [procedure, input]] of Object.entries(entries)) {
      const response = await fetch(`/api/trpc/${procedure}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      const json = (await response.json()) as { error?: { data?: { code?: string } } };
      answers[name] = `${response.status} ${json.error?.data?.code ?? "?"}`;
    }
    return answers;
  }, calls);
}
