import { describe, expect, it } from "vitest";
import { createStudyInputSchema } from "../../../shared/study-inputs";
import type { StudyDefaultsView } from "../../../shared/study-schemas";
import type { StudyView } from "../../../shared/study-schemas";
import {
  draftFromStudy,
  emptyConfiguration,
  emptyDraft,
  errorsFromZod,
  firstErrorPath,
  toBase64,
  toInput,
} from "./form-model";

const defaults: StudyDefaultsView = {
  concurrency: 3,
  concurrencyReasoning: "4 CPUs, 1 CPU per trial",
  agentTimeoutSec: 900,
  evalTimeoutSec: 120,
  tokenBudget: 750_000,
  configuration: { harness: "codex", model: "gpt-5-codex", reasoningEffort: "high", instructions: "" },
  environment: { versionId: "v1", version: 1 },
  blocker: null,
};

describe("new study form model", () => {
  it("fills untouched fields from the project's defaults and parses", () => {
    const draft = { ...emptyDraft("p1"), title: "Fix", taskPrompt: "Fix it", testCommand: "npm test" };
    const input = toInput(draft, defaults);
    expect(input.configurations[0]).toMatchObject({
      model: "gpt-5-codex",
      reasoningEffort: "high",
      repeats: 1,
      command: "",
    });
    expect(input).toMatchObject({ concurrency: 3, agentTimeoutSec: 900, evalTimeoutSec: 120, junitPath: null });
    expect(input.tokenBudget).toBe(750_000); // the project's budget per run, shown and sent
    expect(createStudyInputSchema.safeParse(input).success).toBe(true);
  });

  it("sends the token budget typed in the form, and refuses one too small with a clear message", () => {
    const draft = { ...emptyDraft("p1"), title: "Fix", taskPrompt: "Fix it", testCommand: "npm test" };
    expect(toInput({ ...draft, tokenBudget: "120000" }, defaults).tokenBudget).toBe(120_000);
    const parsed = createStudyInputSchema.safeParse(toInput({ ...draft, tokenBudget: "50" }, defaults));
    expect(parsed.success ? {} : errorsFromZod(parsed.error)).toEqual({
      tokenBudget: "At least 1,000 tokens; one model request alone can use more.",
    });
  });

  it("reports errors by full path, in the form's order", () => {
    const first = { ...emptyConfiguration(), repeats: "x" };
    const second = { ...emptyConfiguration(), harness: "command" as const, repeats: "2" };
    const draft = {
      ...emptyDraft("p1"),
      testCommand: "npm test",
      configurations: [first, second],
      agentTimeoutSec: "",
    };
    const parsed = createStudyInputSchema.safeParse(toInput(draft, defaults));
    expect(parsed.success).toBe(false);
    const errors = parsed.success ? {} : errorsFromZod(parsed.error);
    expect(Object.keys(errors)).toEqual(
      expect.arrayContaining([
        "title",
        "taskPrompt",
        "configurations.0.repeats",
        "configurations.1.command",
        "agentTimeoutSec",
      ]),
    );
    expect(firstErrorPath(errors)).toBe("title");
    expect(firstErrorPath({ "configurations.10.model": "a", "configurations.2.model": "b" })).toBe(
      "configurations.2.model",
    );
  });

  it("encodes uploads as base64", () => {
    const bytes = new Uint8Array(70_000).map((_, i) => i % 256);
    expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
  });

  it("sends a study budget in tokens or dollars only when one is typed, and says what is wrong with it", () => {
    const draft = { ...emptyDraft("p1"), title: "Fix", taskPrompt: "Fix it", testCommand: "npm test" };
    expect(toInput(draft, defaults).budget).toBeUndefined();
    expect(toInput({ ...draft, budgetTokens: "50000" }, defaults).budget).toEqual({ tokens: 50_000, money: null });
    expect(toInput({ ...draft, budgetMoney: "2.5" }, defaults).budget).toEqual({ tokens: null, money: 2.5 });
    const parsed = createStudyInputSchema.safeParse(toInput({ ...draft, budgetMoney: "-1" }, defaults));
    expect(parsed.success ? {} : errorsFromZod(parsed.error)).toEqual({
      "budget.money": "A budget in dollars must be above 0.",
    });
  });

  it("fills the form from an existing study ('New study like this')", () => {
    const study = {
      id: "s1",
      projectId: "p9",
      title: "Calendar",
      taskPrompt: "Fix the calendar.",
      testCommand: "node --test",
      junitPath: null,
      testFiles: [{ path: "test/calendar.test.js", sha256: "a".repeat(64), bytes: 10, role: "test" }],
      configurations: [
        {
          id: "c1",
          choice: 1,
          harness: "codex",
          model: "gpt-5",
          reasoningEffort: "low",
          instructions: "Be brief.",
          overrides: [],
          command: null,
          repeats: 4,
          derivedFrom: null,
        },
      ],
      concurrency: 2,
      agentTimeoutSec: 300,
      evalTimeoutSec: 60,
      tokenBudget: null,
      budget: { tokens: 90_000, money: null },
    } as unknown as StudyView;
    const input = toInput(draftFromStudy(study), defaults);
    expect(input).toMatchObject({
      projectId: "p9",
      title: "Calendar (again)",
      taskPrompt: "Fix the calendar.",
      testCommand: "node --test",
      testFiles: [{ source: "project", path: "test/calendar.test.js", role: "test" }],
      configurations: [
        { harness: "codex", model: "gpt-5", reasoningEffort: "low", instructions: "Be brief.", repeats: 4 },
      ],
      concurrency: 2,
      agentTimeoutSec: 300,
      evalTimeoutSec: 60,
      tokenBudget: 750_000,
      budget: { tokens: 90_000, money: null },
    });
    expect(createStudyInputSchema.safeParse(input).success).toBe(true);
  });
});
