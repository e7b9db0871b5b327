import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import { dataDirPaths } from "../../core/storage/data-dir";

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

export function newToken(prefix: string): string {
  return `${prefix}${randomBytes(24).toString("base64url")}`;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function tokensEqual(a: string, b: string): boolean {
  const left = Buffer.from(hashToken(a));
  const right = Buffer.from(hashToken(b));
  return timingSafeEqual(left, right);
}

/**
 * The admin access token: generated on first start, stored in the data dir with mode 0600.
 * A token file readable by others is tightened; a malformed one is an error (never silently replaced,
 * because the admin's open sessions would stop working without explanation).
 */
export function loadOrCreateAccessToken(options: { dataDir: string }): string {
  const file = dataDirPaths(options.dataDir).accessTokenFile;
  try {
    const token = fs.readFileSync(file, "utf8").trim();
    if (!TOKEN_PATTERN.test(token)) {
      throw new Error(
        `${file} does not hold a valid access token. Delete it to generate a new one (the admin URL changes; viewer links keep working).`,
      );
    }
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const token = newToken("a_");
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${token}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
  return token;
}
