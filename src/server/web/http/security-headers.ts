import type http from "node:http";

/**
 * Headers on every response of the dashboard. The page may not be framed by anyone (clickjacking),
 * scripts, workers and connections stay on our own origin (Monaco's workers are bundled from it and
 * may be started from blob: URLs), and no address leaks through the Referer header.
 */
export function contentSecurityPolicy(options: { dev: boolean }): string {
  return [
    "default-src 'self'",
    // Next.js inlines its bootstrap scripts; the dev server's hot reload also evaluates code
    `script-src 'self' 'unsafe-inline'${options.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function setSecurityHeaders(res: http.ServerResponse, options: { dev: boolean }): void {
  res.setHeader("Content-Security-Policy", contentSecurityPolicy(options));
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Content-Type-Options", "nosniff");
}
