import { AppError } from "../errors/app-error";
import type { Identity } from "../../shared/roles";
import { hashToken, newToken, tokensEqual } from "./access-token";
import type { ViewerLinkQueries, ViewerLinkView } from "./viewer-links.queries";

export interface AccessServiceDeps {
  adminToken: string;
  viewerLinks: ViewerLinkQueries;
  /** Called after a link is revoked so open connections of that viewer can be closed. */
  onRevoke?: (linkId: string) => void;
}

/** Who holds a token: the admin (launcher's token), a viewer (an active read-only link), or nobody. */
export function createAccessService(deps: AccessServiceDeps) {
  return {
    async identify(token: string | undefined): Promise<Identity | null> {
      if (!token) return null;
      if (tokensEqual(token, deps.adminToken)) return { role: "admin", subject: "admin" };
      if (!token.startsWith("v_")) return null;
      const link = await deps.viewerLinks.findActiveByHash(hashToken(token));
      return link ? { role: "viewer", subject: link.id } : null;
    },

    listViewerLinks: () => deps.viewerLinks.list(),

    /** Creates a read-only link. The token is returned once and only its hash is stored. */
    async createViewerLink(input: { label: string }): Promise<{ link: ViewerLinkView; token: string }> {
      const token = newToken("v_");
      const link = await deps.viewerLinks.create({ label: input.label, tokenHash: hashToken(token) });
      return { link, token };
    },

    async revokeViewerLink(id: string): Promise<ViewerLinkView> {
      const link = await deps.viewerLinks.revoke(id);
      if (!link) throw new AppError({ code: "NOT_FOUND", message: `No viewer link with id ${id}.` });
      deps.onRevoke?.(id);
      return link;
    },
  };
}

export type AccessService = ReturnType<typeof createAccessService>;
