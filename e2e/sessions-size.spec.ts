import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, createViewerLink } from "./keep-result-support";
import { renderedLines, sessionScreenshot, typeLine, waitForTerminal } from "./terminal-support";

/**
 * One phone no longer resizes everyone's terminal (issue 26, point 10). A shell session watched from a
 * 1280-px admin window, a second tab of the same browser, a 390-px admin phone and a 390-px viewer phone:
 * opening the other pages leaves the TTY at the desktop's size, and they show it shrunk or scrolled, saying
 * who sizes it; "Fit to this window" on the phone resizes the TTY to the phone, typing on the desktop takes it
 * back, and when the phone in control closes, the desktop takes over. The Setup page at 390 px does not
 * overflow and its header stays short.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(180_000);

const PHONE = { width: 390, height: 844 };
let state: E2eState;
let desktop: BrowserContext;
let phone: BrowserContext;
let phoneViewer: BrowserContext;
let desk: Page;
let sessionUrl = "";
let sessionId = "";
let viewerLink = "";
/** The `size R C` the shell reports in the desktop window. */
let desktopSize = "";

/** Asks the shell for its terminal size (`stty size`) and returns the `size R C` line it printed last. */
async function shellSize(p: Page): Promise<string | undefined> {
  await typeLine(p, 'echo "size $(stty size)"');
  return (await renderedLines(p)).filter((line) => /^size \d+ \d+$/.test(line)).pop();
}

const sizeLine = (p: Page) => p.getByTestId("terminal-size");
/** "150×40" as `size 40 150`, the way the shell says it. */
const asShellSize = (text: string) => {
  const [columns, rows] = /(\d+)×(\d+)/.exec(text)?.slice(1) ?? [];
  return `size ${rows} ${columns}`;
};
/** The font size the terminal's rows are drawn at. */
const fontSizeOf = (p: Page) =>
  p
    .getByTestId("terminal")
    .locator(".xterm-rows")
    .evaluate((rows) => parseFloat(getComputedStyle(rows).fontSize));
const pageWidth = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth);
const headerHeight = async (p: Page) => (await p.locator("header").boundingBox())?.height ?? Infinity;

async function openAt(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await waitForTerminal(page);
  return page;
}

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  phoneViewer = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  desk = await desktop.newPage();
  await desk.goto(state.printedUrl);
  const signIn = await phone.newPage();
  await signIn.goto(state.printedUrl);
  await signIn.close();
  viewerLink = await createViewerLink(desk, state, "Phone watcher");
  const viewerSignIn = await phoneViewer.newPage();
  await viewerSignIn.goto(viewerLink);
  await viewerSignIn.close();
  const projectDir = path.join(path.dirname(state.projectDir), "size-demo");
  fs.cpSync(state.projectDir, projectDir, { recursive: true });
  await addProjectAndPrepare(desk, state, projectDir);
  await desk.goto(`${state.origin}/sessions`);
  const form = desk.getByRole("form", { name: "Start a session" });
  await form.getByRole("combobox", { name: "Project" }).selectOption({ label: "size-demo" });
  await form.getByLabel("A shell").check();
  await form.getByLabel(/^Private copy/).check();
  await form.getByRole("button", { name: "Start session" }).click();
  await expect(desk).toHaveURL(/\/sessions\/[\w-]+$/);
  sessionUrl = desk.url();
  sessionId = new URL(sessionUrl).pathname.split("/").pop() ?? "";
  await expect(desk.getByTestId("session-state")).toHaveText("running");
  await waitForTerminal(desk);
});

test.afterAll(async () => {
  if (sessionId)
    await fetch(`${state.origin}/api/trpc/sessions.finish`, {
      method: "POST",
      headers: { authorization: `Bearer ${state.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ sessionId }),
    }).catch(() => undefined);
  for (const context of [desktop, phone, phoneViewer]) await context?.close();
});

test("the desktop window sizes the terminal; opening it in another tab or on a phone changes nothing", async () => {
  await expect(sizeLine(desk)).toContainText("sized by this window");
  desktopSize = asShellSize(await sizeLine(desk).innerText());
  await expect.poll(() => shellSize(desk)).toBe(desktopSize);
  const [rows, columns] = desktopSize.replace("size ", "").split(" ").map(Number);
  expect(columns).toBeGreaterThan(120);
  await sessionScreenshot(desk, "size-desktop-1280");

  const otherTab = await openAt(desktop, sessionUrl);
  await otherTab.setViewportSize({ width: 900, height: 600 });
  await expect(sizeLine(otherTab)).toContainText(`${columns}×${rows} · sized by your other window`);
  await expect(otherTab.getByRole("button", { name: "Fit to this window" })).toBeVisible();

  const phonePage = await openAt(phone, sessionUrl);
  await expect(sizeLine(phonePage)).toContainText(`${columns}×${rows} · sized by another admin window`);
  await expect(phonePage.getByText("Terminal", { exact: true }).locator("xpath=..")).toContainText(
    `${columns}×${rows}`,
  );
  // the phone shows the desktop's screen as it is: shrunk, and what does not fit a scroll away, not reflowed
  expect(await fontSizeOf(phonePage)).toBeLessThan(13);
  await expect.poll(async () => (await renderedLines(phonePage)).length).toBe(rows);
  await expect.poll(() => renderedLines(phonePage)).toEqual(await renderedLines(desk));
  expect(await pageWidth(phonePage)).toBeLessThanOrEqual(PHONE.width);
  await sessionScreenshot(phonePage, "size-phone-admin-390");

  // the desktop's terminal and the TTY keep the desktop's size
  await expect(sizeLine(desk)).toContainText(`${columns}×${rows} · sized by this window`);
  await expect.poll(() => shellSize(desk)).toBe(desktopSize);
  expect(await fontSizeOf(desk)).toBe(13);
  await otherTab.close();
  await phonePage.close();
});

test("a viewer's phone shows the admin's size, says who sizes it, and offers no control", async () => {
  const viewerPage = await openAt(phoneViewer, sessionUrl);
  const [rows, columns] = desktopSize.replace("size ", "").split(" ");
  await expect(sizeLine(viewerPage)).toContainText(`${columns}×${rows} · sized by the admin's window`);
  await expect(viewerPage.getByRole("button", { name: "Fit to this window" })).toHaveCount(0);
  expect(await fontSizeOf(viewerPage)).toBeLessThan(13);
  expect(await pageWidth(viewerPage)).toBeLessThanOrEqual(PHONE.width);
  await sessionScreenshot(viewerPage, "size-phone-viewer-390");
  await expect.poll(() => shellSize(desk)).toBe(desktopSize);
  await viewerPage.close();
});

test("Fit to this window on the phone resizes the TTY; typing on the desktop takes it back", async () => {
  const phonePage = await openAt(phone, sessionUrl);
  await phonePage.getByRole("button", { name: "Fit to this window" }).click();
  await expect(sizeLine(phonePage)).toContainText("sized by this window");
  await expect(phonePage.getByRole("button", { name: "Fit to this window" })).toHaveCount(0);
  const phoneSize = asShellSize(await sizeLine(phonePage).innerText());
  const phoneColumns = Number(phoneSize.split(" ")[2]);
  expect(phoneColumns).toBeLessThan(60);
  expect(await fontSizeOf(phonePage)).toBe(13);
  // the desktop follows before anyone types: it shows the phone's size and can take it back
  await expect(sizeLine(desk)).toContainText(
    `${phoneColumns}×${phoneSize.split(" ")[1]} · sized by another admin window`,
  );
  await expect(desk.getByRole("button", { name: "Fit to this window" })).toBeVisible();
  await expect.poll(() => shellSize(phonePage)).toBe(phoneSize);
  await sessionScreenshot(phonePage, "size-phone-in-control-390");
  await sessionScreenshot(desk, "size-desktop-following-1280");

  // typing on the desktop makes it the window in control again (xterm.js may measure its font a hair differently
  // now, so the desktop's size is what its own line says, a desktop's width)
  await typeLine(desk, "clear");
  await expect(sizeLine(desk)).toContainText("sized by this window");
  await expect.poll(async () => shellSize(desk)).toBe(asShellSize(await sizeLine(desk).innerText()));
  expect(Number(asShellSize(await sizeLine(desk).innerText()).split(" ")[2])).toBeGreaterThan(120);
  await expect(sizeLine(phonePage)).toContainText("sized by another admin window");
  await expect.poll(() => fontSizeOf(phonePage)).toBeLessThan(13);

  // the phone in control closes: the desktop takes over and sizes the TTY to itself, untouched
  await phonePage.getByRole("button", { name: "Fit to this window" }).click();
  await expect(sizeLine(desk)).toContainText("sized by another admin window");
  await phonePage.close();
  await expect(sizeLine(desk)).toContainText("sized by this window");
  const taken = asShellSize(await sizeLine(desk).innerText());
  expect(Number(taken.split(" ")[2])).toBeGreaterThan(120);
  await expect.poll(() => shellSize(desk)).toBe(taken);
});

test("the Setup page at 390 px has no horizontal overflow and a short header", async () => {
  const setup = await phone.newPage();
  await setup.goto(`${state.origin}/setup`);
  await expect(setup.getByRole("heading", { level: 1, name: "Setup" })).toBeVisible();
  await expect(setup.getByRole("region", { name: "Checklist" })).toBeVisible();
  await sessionScreenshot(setup, "size-setup-390", true);
  expect(await pageWidth(setup)).toBeLessThanOrEqual(PHONE.width);
  expect(await headerHeight(setup)).toBeLessThanOrEqual(120);
  // every page is still a tap away
  for (const name of ["Projects", "Studies", "Sessions", "System", "Setup"])
    await expect(setup.getByRole("navigation", { name: "Main" }).getByRole("link", { name })).toBeVisible();
  await desk.goto(`${state.origin}/setup`);
  await expect(desk.getByRole("region", { name: "Checklist" })).toBeVisible();
  expect(await headerHeight(desk)).toBeLessThanOrEqual(70);
  await sessionScreenshot(desk, "size-setup-1280", true);
  await setup.close();
});
