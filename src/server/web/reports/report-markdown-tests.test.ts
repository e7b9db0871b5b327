// The Markdown report of a 10,000-test suite: bounded, with the failing, flipping and missing tests listed and counted.
import { describe, expect, it } from "vitest";
import { studyReportSchema, type StudyReport } from "../../../shared/study-report";
import { buildTestMatrix } from "../../../shared/test-matrix";
import { REPORT_FIXTURE } from "./report-fixture";
import { renderJsonReport } from "./report-json";
import { renderMarkdownReport } from "./report-markdown";
import { MAX_LISTED_TESTS } from "./report-markdown-tests";

type Status = "passed" | "failed" | "skipped";
const SUITE = 10_000;
// the fixture's evaluated trials: config 1 once, config 2 twice (its third trial errored)
const TRIALS = [
  { id: "trial-1", choice: 1, repeat: 1 },
  { id: "trial-2a", choice: 2, repeat: 1 },
  { id: "trial-2b", choice: 2, repeat: 2 },
];

/** A report whose trials ran `suite` tests, each trial's status per test from `status`, and no row for `absent` ones. */
function reportWithSuite(options: {
  status: (trialId: string, index: number) => Status;
  absent?: (trialId: string, index: number) => boolean;
}): StudyReport {
  const results = new Map(
    TRIALS.map((trial) => [
      trial.id,
      Array.from({ length: SUITE }, (_, index) => ({
        name: `suite ${Math.floor(index / 100)} > case ${index}`,
        status: options.status(trial.id, index),
      })).filter((_, index) => !options.absent?.(trial.id, index)),
    ]),
  );
  return { ...structuredClone(REPORT_FIXTURE), testMatrix: buildTestMatrix({ trials: TRIALS, results }) };
}

const section = (markdown: string): string => markdown.split("\n## Tests × trials\n")[1]?.split("\n## ")[0] ?? "";
const tableRows = (text: string): string[] => text.split("\n").filter((line) => line.startsWith("| suite "));

describe("the Markdown report of a 10,000-test suite", () => {
  it("counts every test and lists only those that failed, flip or did not run somewhere", () => {
    const report = reportWithSuite({
      // 40 fail everywhere; 10 flip between config 2's repeats; the rest pass
      status: (trialId, index) =>
        index % 250 === 3 || (index % 1000 === 7 && trialId === "trial-2b") ? "failed" : "passed",
      absent: (trialId, index) => trialId === "trial-1" && index >= SUITE - 5, // 5 did not run in trial 1
    });
    const markdown = renderMarkdownReport(report);
    expect(markdown.length).toBeLessThan(30_000);
    const text = section(markdown);
    expect(text).toContain(
      "10,000 tests in 3 trials: 50 failed in some trial, 5 did not run in some trial, 9,945 passed (or were skipped) in every trial and are not listed. 10 tests flip between repeats of one configuration",
    );
    const rows = tableRows(text);
    expect(rows).toHaveLength(55);
    // flipping first, then failing, then those that did not run
    expect(rows[0]).toBe("| suite 0 &gt; case 7 | ✓ | ✓ | ✗ | ⇄ configuration 2 |");
    expect(rows).toContain("| suite 0 &gt; case 3 | ✗ | ✗ | ✗ |  |");
    expect(rows.at(-1)).toBe("| suite 99 &gt; case 9999 | · | ✓ | ✓ |  |");
    expect(text).not.toContain("case 4 |");
    // the full matrix stays in the JSON report
    const json = studyReportSchema.parse(JSON.parse(renderJsonReport(report)));
    expect(json.testMatrix?.tests).toHaveLength(SUITE);
  });

  it("stays bounded when every test failed somewhere: the first rows listed, the rest counted", () => {
    const markdown = renderMarkdownReport(
      reportWithSuite({
        // config 1 failed them all; config 2's second repeat failed every other one
        status: (trialId, index) =>
          trialId === "trial-1" || (trialId === "trial-2b" && index % 2 === 0) ? "failed" : "passed",
      }),
    );
    expect(markdown.length).toBeLessThan(30_000);
    const text = section(markdown);
    expect(text).toContain(
      "10,000 tests in 3 trials: 10,000 failed in some trial, 0 did not run in some trial, 0 passed",
    );
    expect(text).toContain("5,000 tests flip between repeats of one configuration");
    const rows = tableRows(text);
    expect(rows).toHaveLength(MAX_LISTED_TESTS);
    expect(rows.every((row) => row.endsWith("| ⇄ configuration 2 |"))).toBe(true);
    expect(text).toContain(
      "_9,800 more tests that failed or did not run somewhere are not listed here (the first 200 are, flipping ones first): see the JSON report's `testMatrix`._",
    );
  });

  it("lists no table when every test passed in every trial, and says so in the counts", () => {
    const text = section(renderMarkdownReport(reportWithSuite({ status: () => "passed" })));
    expect(text).toContain(
      "0 failed in some trial, 0 did not run in some trial, 10,000 passed (or were skipped) in every trial",
    );
    expect(text).toContain("No test flips between repeats of one configuration.");
    expect(tableRows(text)).toEqual([]);
  });
});
