import { z } from "zod";

/**
 * Files that steer how tests run — a pytest hook file, a runner's configuration, package.json scripts, a
 * Node preload, a `.pth` file, ignore rules — that a trial's agent added, changed or deleted. Restoring the
 * captured tests does not undo such a change, so a pass can mean nothing: the verdict carries the list
 * (src/server/worker/trials/test-steering.ts finds it) and the study page, the review and the reports show it
 * beside the verdict. `shown: false` marks a file the ignore rules left out of the review, and so out of
 * the evaluation too: it never ran, but the agent wrote it.
 */
export const TEST_STEERING_CHANGES = ["added", "modified", "deleted"] as const;

export const testSteeringChangeSchema = z.object({
  path: z.string(),
  change: z.enum(TEST_STEERING_CHANGES),
  /** What the file decides ("pytest hooks and fixtures"). */
  steers: z.string().max(200),
  /** In the review and the evaluation (true), or left out of both by ignore rules (false). */
  shown: z.boolean(),
});
export type TestSteeringChange = z.infer<typeof testSteeringChangeSchema>;
export const MAX_TEST_STEERING = 200;

/** "test configuration changed: tests/conftest.py, package.json" (the flag's headline). */
export function testSteeringHeadline(items: readonly TestSteeringChange[]): string {
  const shown = items.filter((item) => item.shown);
  const hidden = items.filter((item) => !item.shown);
  const parts: string[] = [];
  if (shown.length > 0) parts.push(`test configuration changed: ${shown.map((item) => item.path).join(", ")}`);
  if (hidden.length > 0)
    parts.push(`hidden from the review (not evaluated): ${hidden.map((item) => item.path).join(", ")}`);
  return parts.join("; ");
}

/** One line for tables and reports: "tests/conftest.py (added: pytest hooks and fixtures); …". */
export function testSteeringText(items: readonly TestSteeringChange[]): string {
  return items
    .map(
      (item) =>
        `${item.path} (${item.change}${item.shown ? "" : ", hidden from the review, not evaluated"}: ${item.steers})`,
    )
    .join("; ");
}
