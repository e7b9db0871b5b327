import { describe, expect, it } from "vitest";
import { migratedDb } from "../../../../test/support/temp";
import { createAccessService } from "./access-service";
import { createBrowserSessionQueries } from "./browser-sessions.queries";
import { createViewerLinkQueries } from "./viewer-links.queries";

const ADMIN = "a_accessadmintokenaccessadmintoken";
const DAY = 24 * 3600_000;

/** The access service on a real SQLite file, with a clock the test moves. */
async function accessWithClock() {
  const { db } = await migratedDb();
  let now = new Date("2026-12-01T10:00:00Z");
  const revoked: string[] = [];
  const access = createAccessService({
    adminToken: ADMIN,
    viewerLinks: createViewerLinkQueries(db),
    sessions: createBrowserSessionQueries(db),
    clock: () => now,
    onRevoke: (id) => revoked.push(id),
  });
  return { access, db, revoked, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe("browser sessions", () => {
  it("last 30 days by default, then the cookie is refused", async () => {
    const { access, advance } = await accessWithClock();
    const signedIn = await access.signIn({ token: ADMIN, userAgent: "test" });
    expect(signedIn?.maxAgeSeconds).toBe(30 * 24 * 3600);
    expect(await access.identify({ session: signedIn?.secret })).toMatchObject({ role: "admin" });
    advance(30 * DAY - 1000);
    expect(await access.identify({ session: signedIn?.secret })).toMatchObject({ role: "admin" });
    advance(2000);
    expect(await access.identify({ session: signedIn?.secret })).toBeNull();
    expect(await access.listSessions()).toEqual([]);
  });

  it("are refused when revoked, and the revocation is announced so sockets close", async () => {
    const { access, revoked } = await accessWithClock();
    const signedIn = await access.signIn({ token: ADMIN, userAgent: "Chromium" });
    const [session] = await access.listSessions();
    expect(session).toMatchObject({ role: "admin", userAgent: "Chromium", viewerLabel: null });
    await access.revokeSession(session?.id ?? "");
    expect(revoked).toEqual([session?.id]);
    expect(await access.identify({ session: signedIn?.secret })).toBeNull();
    await expect(access.revokeSession("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("never accept a token as a session, nor a session secret as a bearer token", async () => {
    const { access } = await accessWithClock();
    const signedIn = await access.signIn({ token: ADMIN, userAgent: "" });
    expect(await access.identify({ session: ADMIN })).toBeNull();
    expect(await access.identify({ bearer: signedIn?.secret })).toBeNull();
    expect(await access.identify({ bearer: ADMIN })).toMatchObject({ role: "admin" });
  });
});

describe("viewer links with an expiry", () => {
  it("stop working, with their sessions, when they expire", async () => {
    const { access, advance } = await accessWithClock();
    const { link, token } = await access.createViewerLink({ label: "Dana", expiresInDays: 2 });
    expect(link.expiresAt).toBe("2026-12-03T10:00:00.000Z");
    const signedIn = await access.signIn({ token, userAgent: "" });
    // the session ends with the link, not 30 days later
    expect(signedIn?.maxAgeSeconds).toBe(2 * 24 * 3600);
    expect(await access.identify({ session: signedIn?.secret })).toMatchObject({ role: "viewer", subject: link.id });
    advance(2 * DAY + 1);
    expect(await access.identifyToken(token)).toBeNull();
    expect(await access.identify({ session: signedIn?.secret })).toBeNull();
    expect(await access.signIn({ token, userAgent: "" })).toBeNull();
  });

  it("without an expiry work until revoked, and revoking ends their sessions", async () => {
    const { access, advance } = await accessWithClock();
    const { link, token } = await access.createViewerLink({ label: "Sam" });
    expect(link.expiresAt).toBeNull();
    const signedIn = await access.signIn({ token, userAgent: "" });
    advance(300 * DAY);
    expect(await access.identifyToken(token)).toMatchObject({ role: "viewer" });
    const fresh = await access.signIn({ token, userAgent: "" });
    await access.revokeViewerLink(link.id);
    expect(await access.identify({ session: fresh?.secret })).toBeNull();
    expect(await access.identify({ session: signedIn?.secret })).toBeNull();
  });
});

describe("one-time sign-in codes", () => {
  it("work once, for two minutes", async () => {
    const { access, advance } = await accessWithClock();
    const code = access.createLoginCode();
    expect(code).toMatch(/^c_/);
    expect(await access.signIn({ code, userAgent: "" })).toMatchObject({ identity: { role: "admin" } });
    expect(await access.signIn({ code, userAgent: "" })).toBeNull();
    const late = access.createLoginCode();
    advance(2 * 60_000 + 1);
    expect(await access.signIn({ code: late, userAgent: "" })).toBeNull();
    expect(await access.signIn({ code: "c_guess", userAgent: "" })).toBeNull();
  });
});
