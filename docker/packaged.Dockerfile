# invariant-web image from a package installed beforehand: the same image as ../Dockerfile builds from
# source, for hosts that cannot run `npm ci` inside a build (no registry, or a TLS-inspecting proxy).
# PACKAGE_IMAGE holds the package (`npm pack`, unpacked, with its lockfile) at /opt/invariant-web and
# MODULES_IMAGE its production dependencies (what `npm ci --omit=dev --ignore-scripts` installs there) at
# /opt/invariant-web/node_modules. scripts/compose-images.mjs makes both, and the offline NODE_IMAGE and
# REDIS_IMAGE, with no registry (docs/compose.md).
ARG NODE_IMAGE=node:20-bookworm
ARG MODULES_IMAGE=invariant-web-modules:local
ARG PACKAGE_IMAGE=invariant-web-package:local

FROM ${MODULES_IMAGE} AS modules
FROM ${PACKAGE_IMAGE} AS package

FROM ${NODE_IMAGE}
# dependencies first: their layer is reused while the lockfile stays the same
COPY --from=modules /opt/invariant-web/node_modules /opt/invariant-web/node_modules
COPY --from=package /opt/invariant-web /opt/invariant-web
# Keep the lines below the same as in ../Dockerfile.
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1
WORKDIR /opt/invariant-web
# The image's unprivileged `node` user (uid 1000); the data dir must belong to it (docs/compose.md).
USER node
EXPOSE 4317
CMD ["node", "/opt/invariant-web/bin/invariant-web.mjs", "--host", "0.0.0.0", "--no-open"]
