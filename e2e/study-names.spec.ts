import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { FORBIDDEN } from "../test/support/ui-terms";
import { shootBoth } from "./screenshots";
import { readE2eState, type E2eState } from "./e2e-state";

/**
 * One name per thing and 404 pages (issue 26, points 11 and 13): every study the earlier specs made is read
 * as a user reads it (study page, compare page, a trial's review) and no rendered text names a trial,
 * configuration, repeat or verdict in another form (test/support/ui-terms.ts); an unknown id answers 404
 * with a page that says what is missing and links on. Runs after the other study specs (file-name order), so
 * their studies are there to read.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(240_000);

const SHOTS = process.env.NAMES_SCREENSHOTS ?? "";

let state: E2eState;
let admin: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext();
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
});

/** The forbidden forms found in the page's main text, with the word each should be. */
async function offendingNames(): Promise<string[]> {
  const text = await page.locator("main").innerText();
  return FORBIDDEN.flatMap(({ word, form }) => {
    const match = text.match(form);
    return match ? [`"${match[0]}" on ${new URL(page.url()).pathname} (say "${word}")`] : [];
  });
}

test("studies, their comparisons and reviews name trials and configurations one way", async () => {
  await page.goto(`${state.origin}/studies`);
  const links = page.locator('main a[href^="/studies/"]:not([href="/studies/new"])');
  await expect(links.first()).toBeVisible({ timeout: 30_000 });
  const hrefs = [...new Set(await links.evaluateAll((all) => all.map((a) => a.getAttribute("href") ?? "")))].filter(
    (href) => /^\/studies\/[\w-]+$/.test(href),
  );
  expect(hrefs.length).toBeGreaterThanOrEqual(3);
  const problems: string[] = [];
  let reviewed = 0;
  for (const href of hrefs) {
    await page.goto(`${state.origin}${href}`);
    await expect(page.getByTestId("study-state")).toBeVisible({ timeout: 30_000 });
    problems.push(...(await offendingNames()));
    const ids = await page.getByTestId("trial-row").evaluateAll((rows) => rows.map((row) => row.dataset.trialId));
    if (ids.length >= 2) {
      await page.goto(`${state.origin}${href}/compare?trials=${ids.slice(0, 4).join(",")}`);
      await expect(page.getByRole("group", { name: /Trials to compare/ })).toContainText(/Trial \d+\.\d+/);
      problems.push(...(await offendingNames()));
    }
    if (ids[0] && reviewed < 3) {
      reviewed += 1;
      await page.goto(`${state.origin}${href}/trials/${ids[0]}`);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^Trial \d+\.\d+( · .+)?$/, {
        timeout: 30_000,
      });
      problems.push(...(await offendingNames()));
    }
  }
  expect(reviewed).toBeGreaterThan(0);
  expect(problems).toEqual([]);
});

test("an unknown id answers 404 with a page that says what is missing and where to go", async () => {
  const cases = [
    { path: "/studies/nosuchstudy0000", title: "No such study", link: "All studies", to: "/studies" },
    { path: "/studies/nosuchstudy0000/compare", title: "No such study", link: "All studies", to: "/studies" },
    { path: "/projects/nosuchproject000", title: "No such project", link: "All projects", to: "/projects" },
    { path: "/sessions/nosuchsession00", title: "No such session", link: "All sessions", to: "/sessions" },
    { path: "/no/page/here", title: "Page not found", link: "Go to the projects", to: "/projects" },
  ];
  for (const item of cases) {
    const response = await page.goto(`${state.origin}${item.path}`);
    expect(response?.status(), item.path).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(item.title);
    await expect(page.getByRole("link", { name: item.link })).toHaveAttribute("href", item.to);
  }
  await shootBoth(page, "not-found-study", SHOTS);

  // a trial id that is not one of this study's: back to the study it named
  await page.goto(`${state.origin}/studies`);
  const study = await page.locator('main a[href^="/studies/"]:not([href="/studies/new"])').first().getAttribute("href");
  const response = await page.goto(`${state.origin}${study}/trials/nosuchtrial0000`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("No such trial");
  await expect(page.getByRole("link", { name: "The study" })).toHaveAttribute("href", study ?? "");
  await page.getByRole("link", { name: "The study" }).click();
  await expect(page.getByTestId("study-state")).toBeVisible({ timeout: 30_000 });
  await shootBoth(page, "not-found-trial-back", SHOTS);
});
