/** What the 404 page says: the record the address named, why it may be gone, and where to go instead. */
export interface MissingPageCopy {
  title: string;
  message: string;
  links: { href: string; label: string }[];
}

const GENERIC: MissingPageCopy = {
  title: "Page not found",
  message: "There is no page at this address.",
  links: [{ href: "/projects", label: "Go to the projects" }],
};

/**
 * The copy for the 404 page from the server's `x-invariant-missing` header ("study /studies/abc"); the generic
 * page for addresses no page has (no header, or one this page does not know).
 */
export function missingPageCopy(header: string | null): MissingPageCopy {
  const [kind, pathname = ""] = (header ?? "").split(" ", 2);
  const [, , id = "", , trialId = ""] = pathname.split("/");
  switch (kind) {
    case "project":
      return {
        title: "No such project",
        message: `No project has the id ${id}: it was removed, or the link is mistyped.`,
        links: [{ href: "/projects", label: "All projects" }],
      };
    case "study":
      return {
        title: "No such study",
        message: `No study has the id ${id}: it was deleted (with its project or on its own), or the link is mistyped.`,
        links: [{ href: "/studies", label: "All studies" }],
      };
    case "trial":
      return {
        title: "No such trial",
        message: `The study ${id} has no trial with the id ${trialId}: the study was deleted, or the link is mistyped.`,
        links: [
          { href: `/studies/${encodeURIComponent(id)}`, label: "The study" },
          { href: "/studies", label: "All studies" },
        ],
      };
    case "session":
      return {
        title: "No such session",
        message: `No session has the id ${id}: it was removed with its project, or the link is mistyped.`,
        links: [{ href: "/sessions", label: "All sessions" }],
      };
    default:
      return GENERIC;
  }
}
