import { describe, expect, it } from "vitest";
import { createStudyInputSchema } from "../../../shared/study-inputs";
import { addAllMatches } from "./add-all-matches";
import { emptyDraft, toInput } from "./form-model";
import type { StudyDefaultsView } from "../../../shared/study-schemas";

const listed = (paths: string[]) => paths.map((path) => ({ path, bytes: 10 }));

describe("Add all matches in the test-file search", () => {
  it("adds a folder or glob as one entry the study input accepts", () => {
    const add = addAllMatches({
      query: " tests/**/*.py ",
      result: { files: listed(["tests/a.py"]), total: 640 },
      chosen: [],
    });
    expect(add).toMatchObject({ label: "Add all matches (tests/**/*.py: 640 files)", disabled: false });
    expect(add?.drafts).toEqual([
      expect.objectContaining({ source: "project", path: "tests/**/*.py", matches: 640, bytes: 10 }),
    ]);
    const folder = addAllMatches({ query: "test/", result: { files: listed(["test/a.js"]), total: 1 }, chosen: [] });
    const defaults: StudyDefaultsView = {
      concurrency: 1,
      concurrencyReasoning: "",
      agentTimeoutSec: 900,
      evalTimeoutSec: 120,
      tokenBudget: 750_000,
      configuration: { harness: "codex", model: "m", reasoningEffort: "low", instructions: "" },
      environment: { versionId: "v1", version: 1 },
      blocker: null,
    };
    const draft = { ...emptyDraft("p1"), title: "T", taskPrompt: "Do it", testCommand: "npm test" };
    const input = toInput({ ...draft, testFiles: folder?.drafts ?? [] }, defaults);
    expect(createStudyInputSchema.parse(input).testFiles).toEqual([{ source: "project", path: "test/", role: "test" }]);
    expect(
      addAllMatches({ query: "test/", result: { files: [], total: 1 }, chosen: folder?.drafts ?? [] }),
    ).toMatchObject({ disabled: true });
  });

  it("adds every listed file of a plain filter, but not a partial list", () => {
    const chosen = [{ key: "k", source: "project" as const, path: "test/a.test.js" }];
    const add = addAllMatches({
      query: ".test.js",
      result: { files: listed(["test/a.test.js", "test/b.test.js", "test/c.test.js"]), total: 3 },
      chosen,
    });
    expect(add?.label).toBe("Add all 2 matches");
    expect(add?.drafts.map((draft) => draft.path)).toEqual(["test/b.test.js", "test/c.test.js"]);
    const partial = addAllMatches({ query: "test", result: { files: listed(["test/a.js"]), total: 900 }, chosen: [] });
    expect(partial).toMatchObject({ disabled: true, hint: expect.stringContaining("type a folder (test/)") as string });
    expect(addAllMatches({ query: "nothing", result: { files: [], total: 0 }, chosen: [] })).toBeNull();
  });
});
