import type { TestSteeringChange } from "../../../shared/test-steering";

/** One changed file that steers how tests run: path, what changed and what it steers. */
function SteeringItem({ item }: { item: TestSteeringChange }) {
  return (
    <li>
      <span className="font-mono break-all">{item.path}</span>{" "}
      <span className="text-muted">
        ({item.change}: {item.steers}
        {item.shown ? "" : "; hidden from the review by ignore rules, so not evaluated"})
      </span>
    </li>
  );
}

/**
 * The test-steering flag above a trial's diff: files its agent changed that steer how the tests run
 * (src/shared/test-steering.ts). Restoring the captured tests does not undo them, so a reviewer reads
 * them before trusting a pass. Nothing is shown when there are none (or they were not checked).
 */
export function TestSteeringWarning({ items }: { items: TestSteeringChange[] | null }) {
  if (!items || items.length === 0) return null;
  const shown = items.filter((item) => item.shown);
  return (
    <div
      role="alert"
      data-testid="test-steering-warning"
      className="mb-4 rounded-lg border border-warn-strong/60 bg-warn-strong/10 px-4 py-3 text-sm"
    >
      <p className="font-medium text-warn-ink">
        ⚠ Test configuration changed
        {shown.length > 0 ? `: ${shown.map((item) => item.path).join(", ")}` : " (hidden from the review)"}
      </p>
      <p className="mt-1 text-xs text-muted">
        These files steer how the tests run, and restoring the captured tests does not undo them: a pass is only as good
        as these changes. Read them before trusting the verdict.
      </p>
      <ul className="mt-2 grid gap-0.5 text-xs">
        {items.map((item) => (
          <SteeringItem key={item.path} item={item} />
        ))}
      </ul>
    </div>
  );
}
