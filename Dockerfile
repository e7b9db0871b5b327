# invariant-web image: the web process and the worker run from the same image (see docs/compose.md).
# Not exercised on the development machine (it has no image registry); keep it plain.
FROM node:20-bookworm

# INVARIANT_DATA_DIR: database, access token and launcher lock live in /data (mount a volume there).
ENV NEXT_TELEMETRY_DISABLED=1 \
    INVARIANT_DATA_DIR=/data

WORKDIR /app
RUN mkdir -p /data && chown node:node /app /data && chmod 700 /data

# Build and run as the image's unprivileged `node` user (uid 1000).
USER node

# Dependencies first, so source changes reuse this layer. devDependencies are needed to build.
# better-sqlite3 compiles from source if no prebuilt binary is available (the bookworm image has the toolchain).
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci

# Prisma client, dist/ bundles (CLI, web server, worker) and the Next.js build (needs about 2 GB of memory).
COPY --chown=node:node . .
RUN npm run build

ENV NODE_ENV=production
EXPOSE 4317

# Default: the dashboard, reachable through a published port. It needs Redis: set REDIS_URL
# (this image has no redis-server for a private one). docker-compose.yml sets the commands explicitly.
CMD ["node", "bin/invariant-web.mjs", "--host", "0.0.0.0", "--no-open"]
