# Redis for docker-compose.yml. REDIS_IMAGE chooses the image: the public `redis:7` by default, or any
# image with `redis-server` and `redis-cli` on PATH (Debian's redis-server package: scripts/compose-images.mjs).
ARG REDIS_IMAGE=redis:7
FROM ${REDIS_IMAGE}
