import type { NextConfig } from "next";

// The dashboard's pages. The HTTP server around them (auth, tRPC, socket.io) is src/server/web/http/web-server.ts.
const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm test` runs tsc and ESLint itself; a failed type check inside `next build` would delete .next.
  typescript: { ignoreBuildErrors: true },
  devIndicators: false,
  productionBrowserSourceMaps: false,
  serverExternalPackages: ["better-sqlite3", "dockerode", "bullmq", "ioredis"],
};

export default config;
