import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { shootBoth } from "./screenshots";
import { startSecondInstance, type SecondInstance } from "./second-instance";

/**
 * Sign-in per model provider on the Setup page (issue 27): a fresh data dir has no provider signed in;
 * a key pasted for the wrong provider is refused and nothing is stored; an Anthropic key makes Claude Code
 * usable, shown by its last four characters only; all three make every harness usable; removing one takes
 * its harness away. No key appears in the page, the data dir (but its own file) or the log.
 */
test.describe.configure({ mode: "serial" });

const KEYS = {
  openai: "sk-proj-e2eSignIn-RECOGNISABLE-o1o1",
  anthropic: "sk-ant-api03-e2eSignIn-RECOGNISABLE-a7a7",
  google: "AIzaSyE2eSignIn-RECOGNISABLE-g5g5",
} as const;
const SHOTS = process.env.INVARIANT_E2E_SHOTS ?? "";
let product: SecondInstance;
let admin: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  product = await startSecondInstance();
  admin = await browser.newContext();
  page = await admin.newPage();
});

test.afterAll(async () => {
  await admin?.close();
  await product?.stop();
});

const panel = () => page.getByRole("region", { name: "Model access" });
const card = (label: string) => panel().getByRole("region", { name: label });
const harnesses = () => panel().getByRole("list", { name: "Harnesses" });

/** The Model access panel alone at phone width, to look at (its cards are below a long checklist there). */
async function shootPanel(name: string) {
  if (!SHOTS) return;
  await page.setViewportSize({ width: 390, height: 900 });
  await panel().screenshot({ path: path.join(SHOTS, `${name}-390-panel.png`) });
  await page.setViewportSize({ width: 1280, height: 720 });
}

async function storeKey(label: string, key: string) {
  await card(label).getByLabel(`${label} API key`).fill(key);
  await card(label)
    .getByRole("button", { name: `Store ${label} key` })
    .click();
}

test("a fresh data dir: no provider signed in, no harness usable, each with a key form", async () => {
  await page.goto(product.printedUrl);
  await expect(page).toHaveURL(`${product.origin}/setup`);
  for (const label of ["OpenAI", "Anthropic", "Google"]) {
    await expect(card(label).getByTestId("provider-access")).toHaveText("Not signed in");
    await expect(card(label).getByLabel(`${label} API key`)).toHaveAttribute("type", "password");
  }
  for (const harness of ["Codex", "Claude Code", "Gemini CLI"])
    await expect(harnesses()).toContainText(`${harness} not usable`);
  await expect(page.getByRole("listitem", { name: "Model access" })).toContainText("missing");
  await shootBoth(page, "setup-providers-none", SHOTS);
  await shootPanel("setup-providers-none");
});

test("another provider's key is refused with what to do, and nothing is stored", async () => {
  await storeKey("Google", KEYS.anthropic);
  await expect(card("Google")).toContainText(
    "That looks like an Anthropic API key (it starts with sk-ant-), not a Google one.",
  );
  await expect(card("Google").getByTestId("provider-access")).toHaveText("Not signed in");
  expect(fs.existsSync(path.join(product.dataDir, "credentials", "google-api-key"))).toBe(false);
  await card("Google").getByLabel("Google API key").fill("");
  await expect(card("Google")).not.toContainText("That looks like");
});

test("pasting an Anthropic key makes Claude Code usable; the page shows its last four characters only", async () => {
  await storeKey("Anthropic", KEYS.anthropic);
  await expect(card("Anthropic").getByText("Stored. New runs use it; it is not shown again.")).toBeVisible();
  await expect(harnesses()).toContainText("Claude Code usable");
  await expect(harnesses()).toContainText("Codex not usable");
  await expect(card("Anthropic").getByTestId("provider-access")).toHaveText("Signed in · stored key …a7a7");
  await expect(card("Anthropic").getByLabel("Replace the stored Anthropic API key")).toHaveValue("");
  await expect(page.getByRole("listitem", { name: "Model access" })).toContainText("Claude Code usable");
  expect(await page.content()).not.toContain("RECOGNISABLE");
  const file = path.join(product.dataDir, "credentials", "anthropic-api-key");
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  await shootBoth(page, "setup-providers-one", SHOTS);
  await shootPanel("setup-providers-one");
});

test("all three signed in: every harness usable; removing Anthropic's key takes Claude Code away", async () => {
  await storeKey("OpenAI", KEYS.openai);
  await expect(card("OpenAI").getByTestId("provider-access")).toHaveText("Signed in · stored key …o1o1");
  await storeKey("Google", KEYS.google);
  await expect(card("Google").getByTestId("provider-access")).toHaveText("Signed in · stored key …g5g5");
  for (const harness of ["Codex", "Claude Code", "Gemini CLI"])
    await expect(harnesses()).toContainText(`${harness} usable`);
  await shootBoth(page, "setup-providers-all", SHOTS);
  await shootPanel("setup-providers-all");

  await card("Anthropic").getByRole("button", { name: "Remove stored Anthropic key" }).click();
  await expect(card("Anthropic").getByText("The stored key was removed.")).toBeVisible();
  await expect(harnesses()).toContainText("Claude Code not usable");
  expect(fs.existsSync(path.join(product.dataDir, "credentials", "anthropic-api-key"))).toBe(false);

  // no key anywhere but its own file: not in the database, another file of the data dir, the log or the page
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) return [];
      return entry.isDirectory() ? files(full) : [full];
    });
  const keyFiles = ["openai", "google"].map((p) => path.join(product.dataDir, "credentials", `${p}-api-key`));
  for (const file of files(product.dataDir).filter((f) => !keyFiles.includes(f) && !f.endsWith(".sock")))
    expect(fs.readFileSync(file).includes("RECOGNISABLE"), file).toBe(false);
  expect(product.stderr()).not.toContain("RECOGNISABLE");
  expect(await page.content()).not.toContain("RECOGNISABLE");
});
