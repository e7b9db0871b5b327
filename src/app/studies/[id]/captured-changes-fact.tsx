import type { CapturedChange } from "../../../shared/captured-files";

const CHANGE_WORDS: Record<CapturedChange["change"], string> = {
  modified: "modified",
  deleted: "deleted",
  replaced: "replaced",
  "report-left": "report left behind",
};

/**
 * The tamper indicator of a trial: which captured files (tests, runner config) its agent changed and
 * which JUnit reports it left. They were restored or cleared before the evaluation, so the verdict is
 * the test command's own; the list says the agent tried.
 */
export function CapturedChangesFact({ changes }: { changes: CapturedChange[] | null }) {
  if (changes === null) return <span className="text-muted">not checked</span>;
  if (changes.length === 0) return <span data-testid="captured-changes">none changed</span>;
  return (
    <div data-testid="captured-changes">
      <span className="font-medium text-warn-ink">
        {changes.length} changed by the agent (restored before the evaluation)
      </span>
      <ul className="mt-1 grid gap-0.5 text-xs">
        {changes.map((change) => (
          <li key={`${change.role}:${change.path}`}>
            <span className="font-mono">{change.path}</span>{" "}
            <span className="text-muted">
              ({change.role === "report" ? "JUnit report" : change.role}, {CHANGE_WORDS[change.change]})
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
