import { describe, expect, it } from "vitest";
import { pageTarget } from "./page-targets";

describe("pageTarget", () => {
  it("names the record of each page that shows one", () => {
    expect(pageTarget("/projects/cmabc")).toEqual({ kind: "project", projectId: "cmabc" });
    expect(pageTarget("/studies/s1")).toEqual({ kind: "study", studyId: "s1" });
    expect(pageTarget("/studies/s1/compare")).toEqual({ kind: "study", studyId: "s1" });
    expect(pageTarget("/studies/s1/trials/t1")).toEqual({ kind: "trial", studyId: "s1", trialId: "t1" });
    expect(pageTarget("/sessions/x9")).toEqual({ kind: "session", sessionId: "x9" });
    expect(pageTarget("/sessions/x9/review")).toEqual({ kind: "session", sessionId: "x9" });
  });

  it("leaves lists, pages of their own and unknown shapes to Next.js", () => {
    for (const path of [
      "/",
      "/projects",
      "/studies",
      "/studies/new",
      "/sessions",
      "/setup",
      "/system",
      "/studies/s1/trials",
      "/studies/s1/other",
      "/projects/p1/extra",
      "/studies/s1/trials/t1/more",
      "/_next/static/chunk.js",
    ])
      expect(pageTarget(path), path).toBeNull();
  });

  it("does not look up ids no record could have", () => {
    expect(pageTarget("/projects/..%2F..%2Fetc")).toBeNull();
    expect(pageTarget(`/studies/${"a".repeat(65)}`)).toBeNull();
    expect(pageTarget("/studies/%E0%A4%A")).toBeNull();
  });
});
