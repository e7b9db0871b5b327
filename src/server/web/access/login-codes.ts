import { hashToken, newToken } from "./access-token";

const CODE_TTL_MS = 2 * 60_000;
const MAX_OUTSTANDING = 50;

/**
 * One-time sign-in codes, kept in the web process's memory: the launcher opens the browser on
 * `/?code=…` instead of the token URL, so the admin token never appears in a browser's argv (which
 * other users of the host can read). A code works once, for two minutes.
 */
export function createLoginCodes(clock: () => Date) {
  const codes = new Map<string, number>(); // sha256 → expiry (ms)
  const prune = (now: number) => {
    for (const [hash, expires] of codes) if (expires <= now) codes.delete(hash);
  };
  return {
    create(): string {
      const now = clock().getTime();
      prune(now);
      if (codes.size >= MAX_OUTSTANDING) codes.delete(codes.keys().next().value ?? "");
      const code = newToken("c_");
      codes.set(hashToken(code), now + CODE_TTL_MS);
      return code;
    },
    /** True once for a live code; the code is gone afterwards either way. */
    redeem(code: string): boolean {
      const hash = hashToken(code);
      const expires = codes.get(hash);
      codes.delete(hash);
      return expires !== undefined && expires > clock().getTime();
    },
  };
}
