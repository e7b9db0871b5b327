import { describe, expect, it } from "vitest";
import {
  credentialsFromHeaders,
  isAllowedHost,
  isAllowedOrigin,
  parseCookies,
  sameOriginTarget,
  sessionCookie,
} from "./request-guard";

const loopback = { bindHost: "127.0.0.1", port: 4317, allowedHosts: [] };

describe("Host header (DNS rebinding)", () => {
  it("accepts loopback names on our port", () => {
    for (const host of ["127.0.0.1:4317", "localhost:4317", "[::1]:4317", "LOCALHOST:4317"])
      expect(isAllowedHost(host, loopback)).toBe(true);
  });
  it("refuses other names, other ports and missing headers", () => {
    for (const host of [
      "evil.example:4317",
      "127.0.0.1:80",
      "127.0.0.1",
      "attacker.localhost.evil:4317",
      "",
      undefined,
    ])
      expect(isAllowedHost(host, loopback)).toBe(false);
  });
  it("accepts the bound address and configured names, not arbitrary ones when bound to all interfaces", () => {
    expect(isAllowedHost("10.0.0.5:4317", { bindHost: "10.0.0.5", port: 4317, allowedHosts: [] })).toBe(true);
    const any = { bindHost: "0.0.0.0", port: 4317, allowedHosts: ["devbox"] };
    expect(isAllowedHost("0.0.0.0:4317", any)).toBe(false);
    expect(isAllowedHost("devbox:4317", any)).toBe(true);
    expect(isAllowedHost("other:4317", any)).toBe(false);
  });
});

describe("Origin header", () => {
  it("accepts no Origin (non-browser clients) and our own origin", () => {
    expect(isAllowedOrigin(undefined, loopback)).toBe(true);
    expect(isAllowedOrigin("http://127.0.0.1:4317", loopback)).toBe(true);
    expect(isAllowedOrigin("http://localhost:4317", loopback)).toBe(true);
  });
  it("refuses foreign origins", () => {
    for (const origin of [
      "http://evil.example",
      "http://evil.example:4317",
      "http://127.0.0.1:4318",
      "null",
      "file://",
      "http://localhost",
    ])
      expect(isAllowedOrigin(origin, loopback)).toBe(false);
  });
});

describe("credentials", () => {
  it("reads a bearer token before the session cookie, and never a token from a cookie", () => {
    expect(credentialsFromHeaders({ authorization: "Bearer abc", cookie: "invariant_session=s_def" })).toEqual({
      bearer: "abc",
    });
    expect(credentialsFromHeaders({ cookie: "a=1; invariant_session=s_def" })).toEqual({ session: "s_def" });
    expect(credentialsFromHeaders({ cookie: "invariant_token=a_token" })).toEqual({});
    expect(credentialsFromHeaders({})).toEqual({});
  });
  it("sets a persistent HttpOnly, SameSite=Strict session cookie", () => {
    const cookie = sessionCookie("s_secret", 2_592_000);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Max-Age=2592000");
    expect(parseCookies(cookie.split(";")[0]).get("invariant_session")).toBe("s_secret");
  });
});

describe("redirect target", () => {
  it("is a path on this origin, never protocol-relative", () => {
    const target = (raw: string) => sameOriginTarget(new URL(raw, "http://placeholder"));
    expect(target("/projects?tab=1")).toBe("/projects?tab=1");
    expect(target("/.//evil.com/")).toBe("/evil.com/");
    expect(target("/./\\evil.com/x")).toBe("/evil.com/x");
    expect(target("/")).toBe("/");
  });
});
