# syntax=docker/dockerfile:1
# QIM writer service. Build from the repository root:
#   docker build -f docker/writer.Dockerfile -t qim-writer .
# Stage 1 builds only this project (Nx build target: esbuild bundle of apps/writer/src/main.ts);
# stage 2 installs production dependencies only; the final image holds the bundle + those
# dependencies and runs as the unprivileged `node` user.

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY nx.json tsconfig.base.json ./
COPY apps/writer ./apps/writer
COPY libs ./libs
RUN NX_DAEMON=false NX_NO_CLOUD=true npx nx run writer:build --skip-nx-cache

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production QIM_HTTP_PORT=8080
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /src/dist/apps/writer/ ./
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.QIM_HTTP_PORT+'/readyz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=32", "main.js"]
