import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ADMIN_TOKEN, cookieFrom, rawRequest, startHttpHarness, type HttpHarness } from "./support/http-harness";
import { redisUrlFor } from "./support/temp";

/**
 * Issue 15, items 3 and 10, through the product's request handler on real SQLite and Redis:
 * the cookie is a revocable session (never the admin token), one-time sign-in codes, framing
 * refused, no query strings in logs, and no open redirect.
 */
let app: HttpHarness;
beforeAll(async () => {
  app = await startHttpHarness({
    redisUrl: redisUrlFor(inject("redisUrl"), 13),
    handleNext: (req, res) => {
      if (req.url?.startsWith("/boom")) return Promise.reject(new Error("page exploded"));
      res.setHeader("Content-Type", "text/plain");
      res.end("page");
      return Promise.resolve();
    },
  });
});
afterAll(async () => app?.close());

async function signIn(
  link: string,
): Promise<{ status: number; location: string | undefined; cookie: string | null; setCookie: string[] }> {
  const response = await rawRequest({ port: app.port, path: link });
  const setCookie = response.headers["set-cookie"] ?? [];
  return {
    status: response.status,
    location: response.headers.location,
    cookie: cookieFrom(setCookie, "invariant_session"),
    setCookie,
  };
}

const page = (cookie: string) => rawRequest({ port: app.port, path: "/projects", headers: { cookie } });

function trpcQuery(cookie: string, procedure: string) {
  return rawRequest({ port: app.port, path: `/api/trpc/${procedure}`, headers: { cookie } });
}

function trpcMutation(cookie: string, procedure: string, body: unknown) {
  return rawRequest({
    port: app.port,
    path: `/api/trpc/${procedure}`,
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("signing in (item 3)", () => {
  it("trades the token link for a persistent session cookie that is not the token", async () => {
    const login = await signIn(`/projects?token=${ADMIN_TOKEN}`);
    expect(login.status).toBe(303);
    expect(login.location).toBe("/projects");
    expect(login.setCookie.join("\n")).not.toContain(ADMIN_TOKEN);
    expect(login.cookie).toMatch(/^invariant_session=s_[A-Za-z0-9_-]{32,}$/);
    const attributes = login.setCookie.find((cookie) => cookie.startsWith("invariant_session="));
    expect(attributes).toContain("HttpOnly");
    expect(attributes).toContain("SameSite=Strict");
    expect(attributes).toContain("Path=/");
    expect(attributes).toContain(`Max-Age=${30 * 24 * 3600}`);
    expect((await page(login.cookie ?? "")).status).toBe(200);
    // the token itself is no longer a cookie credential (a cookie reaches every server on localhost)
    expect((await page(`invariant_token=${ADMIN_TOKEN}`)).status).toBe(401);
    // the session row keeps only a hash of the cookie
    const stored = await app.db.browserSession.findMany();
    const secret = (login.cookie ?? "").split("=")[1] ?? "";
    expect(stored.some((row) => row.secretHash.includes(secret))).toBe(false);
  });

  it("lists sessions and revokes one: its cookie stops working at once", async () => {
    const first = (await signIn(`/?token=${ADMIN_TOKEN}`)).cookie ?? "";
    const second = (await signIn(`/?token=${ADMIN_TOKEN}`)).cookie ?? "";
    const listed = await trpcQuery(first, "system.sessions");
    expect(listed.status).toBe(200);
    const sessions = (JSON.parse(listed.body) as { result: { data: { id: string; current: boolean; role: string }[] } })
      .result.data;
    const current = sessions.find((session) => session.current);
    expect(current?.role).toBe("admin");
    const other = sessions.find((session) => !session.current);
    expect(other).toBeDefined();
    expect((await trpcMutation(first, "system.revokeSession", { id: other?.id })).status).toBe(200);
    expect((await page(second)).status).toBe(401);
    expect((await page(first)).status).toBe(200);
  });

  it("redeems a one-time sign-in code once", async () => {
    const code = app.services.access.createLoginCode();
    expect(code).not.toContain(ADMIN_TOKEN);
    const login = await signIn(`/?code=${code}`);
    expect(login.status).toBe(303);
    expect(login.location).toBe("/");
    expect((await page(login.cookie ?? "")).status).toBe(200);
    const again = await signIn(`/?code=${code}`);
    expect(again.status).toBe(401);
    expect(again.cookie).toBeNull();
  });

  it("signs a viewer in with a read-only session that ends with the link", async () => {
    const { link, token } = await app.services.access.createViewerLink({ label: "Dana", expiresInDays: 7 });
    expect(link.expiresAt).not.toBeNull();
    const viewer = (await signIn(`/?token=${token}`)).cookie ?? "";
    expect((await page(viewer)).status).toBe(200);
    const refused = await trpcMutation(viewer, "projects.add", { hostPath: "/tmp" });
    expect(refused.status).toBe(403);
    await app.services.access.revokeViewerLink(link.id);
    expect((await page(viewer)).status).toBe(401);
  });
});

describe("framing and logs (item 3)", () => {
  it("forbids framing on pages, refusals and the API", async () => {
    const cookie = (await signIn(`/?token=${ADMIN_TOKEN}`)).cookie ?? "";
    for (const response of [
      await page(cookie),
      await rawRequest({ port: app.port, path: "/projects" }),
      await trpcQuery(cookie, "system.whoami"),
    ]) {
      expect(response.headers["x-frame-options"]).toBe("DENY");
      expect(response.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    }
  });

  it("never writes a query string to the log", async () => {
    const response = await rawRequest({
      port: app.port,
      path: "/boom?secret=do-not-log-me",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status).toBe(500);
    expect(app.logs.join("\n")).toContain("/boom");
    expect(app.logs.join("\n")).not.toContain("do-not-log-me");
  });
});

describe("the sign-in redirect (item 10)", () => {
  it("stays on this origin whatever the path looks like", async () => {
    for (const path of ["/.//evil.com/", "//evil.com/", "/./\\evil.com/", "/%2F/evil.com/", "///evil.com"]) {
      const login = await signIn(`${path}?token=${ADMIN_TOKEN}`);
      expect(login.status, path).toBe(303);
      const location = login.location ?? "";
      expect(location.startsWith("/"), `${path} → ${location}`).toBe(true);
      expect(location.startsWith("//") || location.startsWith("/\\"), `${path} → ${location}`).toBe(false);
      expect(new URL(location, app.base).origin).toBe(app.base);
    }
  });
});
