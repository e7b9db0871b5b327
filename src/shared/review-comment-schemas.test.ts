import { describe, expect, it } from "vitest";
import {
  addCommentInputSchema,
  commentPlace,
  continueWithFeedbackInputSchema,
  feedbackPrompt,
} from "./review-comment-schemas";
import { compareTrialPlaces, trialName } from "./domain-names";

const comment = (path: string | null, startLine: number | null, endLine: number | null, body: string) => ({
  path,
  startLine,
  endLine,
  body,
});

describe("review comments", () => {
  it("name their place as path:lines, path:line, path, or nothing for the whole trial", () => {
    expect(commentPlace(comment("src/a.ts", 3, 5, ""))).toBe("src/a.ts:3-5");
    expect(commentPlace(comment("src/a.ts", 3, 3, ""))).toBe("src/a.ts:3");
    expect(commentPlace(comment("src/a.ts", null, null, ""))).toBe("src/a.ts");
    expect(commentPlace(comment(null, null, null, ""))).toBeNull();
  });

  it("make the follow-up's prompt, one comment a line, oldest first", () => {
    const prompt = feedbackPrompt([comment("src/a.ts", 3, 5, "off by one"), comment(null, null, null, "Add a test.")]);
    expect(prompt.split("\n").slice(-2)).toEqual(["- src/a.ts:3-5 — off by one", "- Add a test."]);
  });

  it("refuse paths outside the workspace, ranges without a path and backwards ranges", () => {
    const base = { trialId: "t1", body: "x" };
    for (const path of ["/etc/passwd", "../x", "a/../b", "a//b", "a\\\\b", "./a"])
      expect(addCommentInputSchema.safeParse({ ...base, path }).success, path).toBe(false);
    expect(addCommentInputSchema.safeParse({ ...base, startLine: 3 }).success).toBe(false);
    expect(addCommentInputSchema.safeParse({ ...base, path: "a.ts", startLine: 5, endLine: 3 }).success).toBe(false);
    expect(addCommentInputSchema.safeParse({ ...base, path: "a.ts", endLine: 3 }).success).toBe(false);
    expect(addCommentInputSchema.safeParse({ ...base, body: "   " }).success).toBe(false);
    expect(addCommentInputSchema.safeParse({ ...base, extra: 1 }).success).toBe(false);
    expect(addCommentInputSchema.parse({ ...base, body: "  ok  ", path: "src/a.ts", startLine: 2 })).toMatchObject({
      body: "ok",
      path: "src/a.ts",
      startLine: 2,
    });
  });

  it("send feedback to 1..50 distinct trials", () => {
    expect(continueWithFeedbackInputSchema.safeParse({ studyId: "s", trialIds: [] }).success).toBe(false);
    expect(continueWithFeedbackInputSchema.safeParse({ studyId: "s", trialIds: ["a", "a"] }).success).toBe(false);
    expect(continueWithFeedbackInputSchema.safeParse({ studyId: "s", trialIds: ["a"], feedback: "" }).success).toBe(
      false,
    );
    expect(continueWithFeedbackInputSchema.safeParse({ studyId: "s", trialIds: ["a", "b"] }).success).toBe(true);
  });
});

describe("follow-up names", () => {
  it("number a follow-up under its trial and list it right after it", () => {
    expect(trialName({ choice: 3, repeat: 2, followUpPath: [1] })).toBe("Trial 3.2.1");
    expect(trialName({ choice: 3, repeat: 2, followUpPath: [1, 1] })).toBe("Trial 3.2.1.1");
    const places = [
      { choice: 1, repeat: 2, followUpPath: [] },
      { choice: 1, repeat: 1, followUpPath: [2] },
      { choice: 1, repeat: 1, followUpPath: [1, 1] },
      { choice: 1, repeat: 1, followUpPath: [] },
      { choice: 1, repeat: 1, followUpPath: [1] },
    ];
    expect([...places].sort(compareTrialPlaces).map((place) => trialName(place))).toEqual([
      "Trial 1.1",
      "Trial 1.1.1",
      "Trial 1.1.1.1",
      "Trial 1.1.2",
      "Trial 1.2",
    ]);
  });
});
