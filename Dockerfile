# The service on the official Bun image. Migrations run at start (and are safe with
# several replicas: an advisory lock serialises them).
FROM oven/bun:1.4.5-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Bun installs from package-lock.json's versions; dev tools (bun from npm, test-only
# databases) stay out of the image.
RUN bun install --production --ignore-scripts

FROM oven/bun:1.4.5-slim
WORKDIR /app
ENV NODE_ENV=production TZ=UTC PORT=3000
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY sql ./sql
COPY assets ./assets
USER bun
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:3000/health/ready').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["bun", "src/main.ts"]
