import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/temp";
import { uiStrings } from "./support/ui-strings";
import { FORBIDDEN } from "./support/ui-terms";

/**
 * One term per domain word (issue 26, point 11): the strings the dashboard, the reports and the CLI show name a
 * trial "Trial 3.2" (configuration 3, repeat 2; src/shared/domain-names.ts), a configuration "configuration",
 * a repeat "repeat", a verdict "verdict", and no synonym or abbreviation of them.
 */
const SHOWN = ["src/app", "src/shared", "src/server/web/reports", "src/cli"];

/** Strings that are data, not words: a captured file's kind, a verdict parser's id compared in code. */
const DATA_VALUES = new Set(["config", "exit-code"]);
/** A dotted field path (a manifest field's key, `followUp.parentTrialId`) is data too; its label is checked. */
const FIELD_PATH = /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+$/;

describe("the words the UI shows", () => {
  const strings = uiStrings(REPO_ROOT, SHOWN).filter(
    (string) => !DATA_VALUES.has(string.text) && !FIELD_PATH.test(string.text),
  );

  it("finds the strings it checks (pages, labels, reports, CLI)", () => {
    expect(strings.length).toBeGreaterThan(2_000);
    const files = new Set(strings.map((string) => string.file));
    for (const file of ["src/app/studies/[id]/trial-row.tsx", "src/server/web/reports/report-markdown.ts"])
      expect(files).toContain(file);
  });

  it("names each domain word one way", () => {
    const offending = strings.flatMap((string) =>
      FORBIDDEN.filter(({ form }) => form.test(string.text)).map(
        ({ word }) =>
          `${string.file}:${string.line}: ${JSON.stringify(string.text.trim().slice(0, 100))} (say "${word}")`,
      ),
    );
    expect(offending).toEqual([]);
  });

  it("catches the forms it forbids", () => {
    const check = (text: string) => FORBIDDEN.some(({ form }) => form.test(text));
    for (const bad of [
      "#${}.${}",
      "Trial #3",
      "gpt-5 (repeat 2)",
      "Config ${} pass rate",
      "⇄ config 2",
      "3 runs",
      "a child trial",
      "Followup",
      "Add annotation",
    ])
      expect(check(bad), bad).toBe(true);
    for (const good of [
      "Trial 3.2",
      "Configuration 2",
      "Wilson score interval",
      "3 repeats",
      "runner config",
      "Follow-up of Trial 3.2",
      "Add comment",
    ])
      expect(check(good), good).toBe(false);
  });
});
