import type http from "node:http";
import { pageTarget, type PageTargetQueries } from "../pages/page-targets";

/** The request header that tells the 404 page the kind of record the address named and the address (set only here). */
export const MISSING_HEADER = "x-invariant-missing";
/** A path no page has (Next.js keeps `_folders` private): Next.js renders the 404 page for it, status 404. */
const NO_PAGE = "/_missing";

/**
 * A page whose id names no record (a deleted study, a mistyped link) is sent to the 404 page with the kind of
 * record it named, so the answer is a 404 that says what is missing and where to go, not a 200 with one red line.
 */
export async function routeMissingPage(options: {
  req: http.IncomingMessage;
  pathname: string;
  pages: PageTargetQueries;
}): Promise<void> {
  delete options.req.headers[MISSING_HEADER]; // only this server says what is missing
  if (options.req.method !== "GET" && options.req.method !== "HEAD") return;
  const target = pageTarget(options.pathname);
  if (!target || (await options.pages.exists(target))) return;
  const query = (options.req.url ?? "").split("?")[1];
  options.req.url = query ? `${NO_PAGE}?${query}` : NO_PAGE;
  options.req.headers[MISSING_HEADER] = `${target.kind} ${options.pathname}`;
}
