# invariant-web image, built from source: the web process and the workers run from it (docs/compose.md).
# NODE_IMAGE chooses the base: any Debian-based image with Node.js 20 and a `node` user (uid 1000).
# docker/packaged.Dockerfile makes the same image from a package installed beforehand, with no
# registry (how the tests build it offline).
ARG NODE_IMAGE=node:20-bookworm

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# Dependencies first, so source changes reuse this layer. devDependencies are needed to build.
# better-sqlite3 compiles from source if no prebuilt binary is available (the bookworm image has the toolchain).
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# `npm pack` builds (Prisma client, dist/ bundles, the Next.js build: about 2 GB of memory) and packs what
# `npx invariant-web` gets; the package is installed at /opt/invariant-web with its production dependencies,
# exactly as locked, and no dependency's install script (the package ships better-sqlite3's addon).
COPY . .
RUN npm pack --pack-destination /tmp --loglevel=warn \
 && mkdir -p /opt/invariant-web \
 && tar -xzf /tmp/invariant-web-*.tgz -C /opt/invariant-web --strip-components=1 \
 && cp package-lock.json /opt/invariant-web/ \
 && cd /opt/invariant-web \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
COPY --from=build /opt/invariant-web /opt/invariant-web
# Keep the lines below the same as in docker/packaged.Dockerfile.
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1
WORKDIR /opt/invariant-web
# The image's unprivileged `node` user (uid 1000); the data dir must belong to it (docs/compose.md).
USER node
EXPOSE 4317
# Default: the dashboard, reachable through a published port. It needs Redis: set REDIS_URL (this image
# has no redis-server for a private one). docker-compose.yml sets the commands explicitly.
CMD ["node", "/opt/invariant-web/bin/invariant-web.mjs", "--host", "0.0.0.0", "--no-open"]
