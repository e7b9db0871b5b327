import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { loadOrCreateAccessToken } from "./access-token";

describe("access token file", () => {
  it("is generated once with mode 0600 and reused on the next start", () => {
    const dataDir = tempDir("token");
    const first = loadOrCreateAccessToken({ dataDir });
    expect(first).toMatch(/^a_[A-Za-z0-9_-]{32}$/);
    expect(fs.statSync(path.join(dataDir, "access-token")).mode & 0o777).toBe(0o600);
    expect(loadOrCreateAccessToken({ dataDir })).toBe(first);
  });
  it("tightens a token file others could read", () => {
    const dataDir = tempDir("token");
    const token = loadOrCreateAccessToken({ dataDir });
    fs.chmodSync(path.join(dataDir, "access-token"), 0o644);
    expect(loadOrCreateAccessToken({ dataDir })).toBe(token);
    expect(fs.statSync(path.join(dataDir, "access-token")).mode & 0o777).toBe(0o600);
  });
  it("refuses a malformed token file instead of silently replacing it", () => {
    const dataDir = tempDir("token");
    fs.writeFileSync(path.join(dataDir, "access-token"), "short", { mode: 0o600 });
    expect(() => loadOrCreateAccessToken({ dataDir })).toThrow(/does not hold a valid access token/);
    expect(fs.readFileSync(path.join(dataDir, "access-token"), "utf8")).toBe("short");
  });
});
