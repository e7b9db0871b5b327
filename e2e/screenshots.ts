import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";

/**
 * Screenshots of the page at desktop and phone width, into the test's output (and `copyTo` when set, e.g. from
 * an env var, to look at them), each after checking that nothing widens the page past the screen (a wide table
 * scrolls in its own box). The viewport goes back to 1280×720.
 */
export async function shootBoth(page: Page, name: string, copyTo = ""): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    // charts follow the new width a frame or more later (ResizeObserver): what counts is where the page settles
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 })
      .toBeLessThanOrEqual(width);
    const file = test.info().outputPath(`${name}-${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    if (copyTo) {
      fs.mkdirSync(copyTo, { recursive: true });
      fs.copyFileSync(file, path.join(copyTo, `${name}-${width}.png`));
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}
