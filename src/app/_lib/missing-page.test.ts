import { describe, expect, it } from "vitest";
import { missingPageCopy } from "./missing-page";

describe("missingPageCopy", () => {
  it("says which record is missing and links to its list", () => {
    const study = missingPageCopy("study /studies/abc");
    expect(study.title).toBe("No such study");
    expect(study.message).toContain("abc");
    expect(study.links).toEqual([{ href: "/studies", label: "All studies" }]);
  });

  it("sends a missing trial back to its study", () => {
    const trial = missingPageCopy("trial /studies/s1/trials/t9");
    expect(trial.message).toContain("t9");
    expect(trial.links[0]).toEqual({ href: "/studies/s1", label: "The study" });
  });

  it("falls back to the generic page for any other address", () => {
    expect(missingPageCopy(null).title).toBe("Page not found");
    expect(missingPageCopy("bogus /x").title).toBe("Page not found");
    expect(missingPageCopy("session /sessions/q").links[0]?.href).toBe("/sessions");
    expect(missingPageCopy("project /projects/q").links[0]?.href).toBe("/projects");
  });
});
