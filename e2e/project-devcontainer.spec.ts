import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { shootBoth } from "./screenshots";

/**
 * A project with a .devcontainer/devcontainer.json (issue 28, point 4): the Environment panel says what it
 * gives and what is ignored (initializeCommand, which never runs on the host), "Prepare from devcontainer.json"
 * builds a ready version that the version list says came from it; a file with `features` is refused, the
 * feature named. Screenshots at 1280 and 390 px in /tmp/shots-devcontainer (DEVCONTAINER_SCREENSHOTS).
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

const SHOTS = process.env.DEVCONTAINER_SCREENSHOTS ?? "/tmp/shots-devcontainer";
let state: E2eState;
let admin: BrowserContext;
let page: Page;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "iw-e2e-devcontainer-"));
const marker = path.join(root, "initialize-ran");
const projectIds: string[] = [];

function project(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

async function addProject(dir: string, name: string): Promise<void> {
  await page.goto(`${state.origin}/projects`);
  await page.getByLabel("Project directory on this host").fill(dir);
  await page.getByRole("button", { name: "Add project" }).click();
  const link = page.getByRole("list", { name: "Projects" }).getByRole("link", { name: new RegExp(name) });
  await expect(link).toBeVisible();
  const href = (await link.getAttribute("href")) ?? "";
  projectIds.push(href.split("/").pop() ?? "");
  await page.goto(`${state.origin}${href}`);
}

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
  for (const id of projectIds) {
    const images = execFileSync("docker", ["images", "-aq", "--filter", `label=invariant.project=${id}`], {
      encoding: "utf8",
    })
      .split("\n")
      .filter(Boolean);
    if (images.length > 0) execFileSync("docker", ["rmi", "-f", ...new Set(images)], { stdio: "ignore" });
  }
});

test("Prepare from devcontainer.json builds a version the list says came from it", async () => {
  const dir = project("devcontainer-web", {
    ".devcontainer/devcontainer.json": `{
      // JSONC
      "build": { "dockerfile": "Dockerfile" },
      "containerEnv": { "GREETING": "hello" },
      "remoteUser": "root",
      "initializeCommand": "touch ${marker}",
      "postCreateCommand": "echo \\"$GREETING\\" > /opt/greeting",
    }`,
    ".devcontainer/Dockerfile": "FROM invariant-base:bookworm\nRUN mkdir -p /opt\n",
  });
  await addProject(dir, "devcontainer-web");
  const option = page.getByRole("region", { name: "devcontainer.json" });
  await expect(option).toContainText("This project has .devcontainer/devcontainer.json");
  await expect(option).toContainText("Dockerfile .devcontainer/Dockerfile (context .devcontainer)");
  await expect(option).toContainText("containerEnv GREETING");
  await expect(option).toContainText("Ignored initializeCommand: it runs on the host in VS Code");
  await shootBoth(page, "devcontainer-option", SHOTS);

  await option.getByRole("button", { name: "Prepare from devcontainer.json" }).click();
  const versions = page.getByRole("table", { name: "Environment versions" });
  const row = versions.getByRole("row").filter({ hasText: "from .devcontainer/devcontainer.json" });
  await expect(row).toContainText("ready", { timeout: 240_000 });
  await expect(row).toContainText("active");
  expect(fs.existsSync(marker)).toBe(false);
  await shootBoth(page, "devcontainer-version", SHOTS);
});

test("a devcontainer.json with features is refused, the feature named", async () => {
  const dir = project("devcontainer-features", {
    ".devcontainer.json": JSON.stringify({
      image: "invariant-base:bookworm",
      features: { "ghcr.io/devcontainers/features/node:1": {} },
      runArgs: ["--privileged"],
    }),
  });
  await addProject(dir, "devcontainer-features");
  const refusal = page.getByRole("status", { name: "devcontainer.json" });
  await expect(refusal).toContainText(".devcontainer.json cannot be used to prepare the environment");
  await expect(refusal).toContainText('"features" (ghcr.io/devcontainers/features/node:1) is not supported');
  await expect(refusal).toContainText('"runArgs" is not supported');
  await expect(page.getByRole("button", { name: "Prepare from devcontainer.json" })).toHaveCount(0);
  await shootBoth(page, "devcontainer-refused", SHOTS);
});
