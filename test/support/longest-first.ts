import fs from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Runs the Vitest files longest first, by test/durations.json (seconds per file, from a full run on this
 * kind of machine: scripts/test-durations.mjs), so with three workers the long integration files start
 * at once instead of last; files not listed yet (new ones) go first, as Vitest itself does with files it
 * has no figures for. A fresh clone has no Vitest cache, which is why the figures are committed.
 */
const durations = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "durations.json"), "utf8")) as Record<
  string,
  number
>;

export class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (file: TestSpecification) =>
      durations[path.relative(root, file.moduleId).split(path.sep).join("/")] ?? Number.POSITIVE_INFINITY;
    return Promise.resolve([...files].sort((a, b) => seconds(b) - seconds(a)));
  }
}
