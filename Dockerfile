# The service on the official Bun image: production dependencies and the service's own
# files only (no tests, benchmarks, simulator or demo; see .dockerignore). Migrations run
# at start (and are safe with several replicas: an advisory lock serialises them).
FROM oven/bun:1.4.5-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# dependencies only (no devDependencies), at package-lock.json's versions (bun migrates the
# npm lockfile; --frozen-lockfile fails if package.json and the lockfile disagree).
# The npm package `bun` is how `npm start` gets Bun; the image has its own Bun, so its
# platform binary (an optional dependency, ~100 MB) is skipped and its stub removed.
RUN bun install --production --frozen-lockfile --ignore-scripts --omit=optional \
 && rm -rf node_modules/bun node_modules/.bin/bun node_modules/.bin/bunx

FROM oven/bun:1.4.5-slim
WORKDIR /app
ENV NODE_ENV=production TZ=UTC PORT=3000
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
# src/ without src/sim (left out by .dockerignore): nothing reachable from src/main.ts
# imports the simulator.
COPY src ./src
COPY sql ./sql
# Lookup data read at run time (src/lookups.ts); the feed samples of the simulator and the
# tests are not copied.
COPY assets/upstream-samples/static ./assets/upstream-samples/static
COPY assets/upstream-samples/README.md ./assets/upstream-samples/README.md
# The embedded database's template (used only without DATABASE_URL).
COPY assets/embedded ./assets/embedded
# The spool of scheduled ticks (and the embedded database without DATABASE_URL) lives in
# DATA_DIR: writable by the service user, and a volume so that ticks kept through a
# database outage survive a container restart. One per container: replicas never share it.
RUN mkdir -p /app/data && chown bun:bun /app/data
VOLUME /app/data
USER bun
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:3000/health/ready').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["bun", "src/main.ts"]
