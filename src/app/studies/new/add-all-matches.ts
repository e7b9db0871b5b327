import { isTestFilePattern } from "../../../shared/study-inputs";
import type { ProjectFileView } from "../../../shared/study-schemas";
import { newKey, type TestFileDraft } from "./form-model";

/**
 * The "Add all matches" button of the test-file search: a folder or glob (`test/`, `tests/**\/*.py`) is added
 * as that one pattern (the server expands it to the files when the study is created); a plain filter adds
 * each listed file not chosen yet, and only when the list is complete (else the button says to type a
 * pattern). Null: nothing matched, no button.
 */
export interface AddAllMatches {
  label: string;
  disabled: boolean;
  /** Why it is disabled, when that is not obvious. */
  hint: string | null;
  drafts: TestFileDraft[];
}

const files = (count: number) => `${count} file${count === 1 ? "" : "s"}`;

export function addAllMatches(options: {
  query: string;
  result: { files: ProjectFileView[]; total: number };
  chosen: readonly TestFileDraft[];
}): AddAllMatches | null {
  const { result } = options;
  const pattern = options.query.trim();
  const chosen = new Set(options.chosen.map((file) => file.path));
  if (result.total === 0) return null;
  if (isTestFilePattern(pattern)) {
    const bytes = result.files.reduce((sum, file) => sum + file.bytes, 0);
    const added = chosen.has(pattern);
    return {
      label: `Add all matches (${pattern}: ${files(result.total)})`,
      disabled: added,
      hint: added ? `${pattern} is added already.` : null,
      drafts: [{ key: newKey(), source: "project", path: pattern, bytes, matches: result.total }],
    };
  }
  const fresh = result.files.filter((file) => !chosen.has(file.path));
  const complete = result.total === result.files.length;
  return {
    label: `Add all ${fresh.length} match${fresh.length === 1 ? "" : "es"}`,
    disabled: !complete || fresh.length === 0,
    hint: complete
      ? null
      : `${result.total} files match, too many to list: type a folder (test/) or a glob (tests/**/*.py) to add them all as one entry.`,
    drafts: fresh.map((file) => ({ key: newKey(), source: "project", path: file.path, bytes: file.bytes })),
  };
}
