import type { Db } from "../../core/db/client";

/** What a dashboard page is about, read from its path: the record it shows must exist for the page to make sense. */
export type PageTarget =
  | { kind: "project"; projectId: string }
  | { kind: "study"; studyId: string }
  | { kind: "trial"; studyId: string; trialId: string }
  | { kind: "session"; sessionId: string };

/** Path segments under /studies/ that are pages of their own, not study ids. */
const STUDY_PAGES = new Set(["new"]);
const ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The record a page path names, or null for pages that name none (lists, Setup, /studies/new) and for paths with
 * more segments than any page has (Next.js answers those 404 itself).
 */
export function pageTarget(pathname: string): PageTarget | null {
  const parts = pathname.split("/").filter(Boolean).map(safeDecode);
  const [section, id, sub, subId, ...rest] = parts;
  if (!id || !ID.test(id) || rest.length > 0) return null;
  if (section === "projects" && !sub) return { kind: "project", projectId: id };
  if (section === "sessions" && (!sub || sub === "review") && !subId) return { kind: "session", sessionId: id };
  if (section !== "studies" || STUDY_PAGES.has(id)) return null;
  if (!sub) return { kind: "study", studyId: id };
  if (sub === "compare" && !subId) return { kind: "study", studyId: id };
  if (sub === "trials" && subId && ID.test(subId)) return { kind: "trial", studyId: id, trialId: subId };
  return null;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The kind of record a missing page named, for the 404 page's words ("No study with this id"). */
export type MissingKind = PageTarget["kind"];

/** Whether the record a page names exists: one indexed lookup by primary key. */
export function createPageTargetQueries(db: Db) {
  return {
    async exists(target: PageTarget): Promise<boolean> {
      switch (target.kind) {
        case "project":
          return (await db.project.findUnique({ where: { id: target.projectId }, select: { id: true } })) !== null;
        case "study":
          return (await db.study.findUnique({ where: { id: target.studyId }, select: { id: true } })) !== null;
        case "trial": {
          const trial = await db.trial.findUnique({ where: { id: target.trialId }, select: { studyId: true } });
          return trial?.studyId === target.studyId;
        }
        case "session":
          return (await db.session.findUnique({ where: { id: target.sessionId }, select: { id: true } })) !== null;
      }
    },
  };
}

export type PageTargetQueries = ReturnType<typeof createPageTargetQueries>;
