# syntax=docker/dockerfile:1
# One image recipe for every deployable. SERVICE names it (gateway, telephony, leads, recall, mcp, webhooks,
# console) and PORT is the port it listens on (ARCHITECTURE.md: gateway 8080, telephony 8081 … console 8086).
# Build from the repository root, e.g.:
#   docker build --build-arg SERVICE=telephony --build-arg PORT=8081 -t voice/telephony .
# The gateway's image also runs the migrations (`node packages/migrator/bin/voice-db.mjs migrate`, a
# Kubernetes Job or the compose `migrate` service) and the operator CLI (`node gateway/dist/cli/admin.js …`);
# every image runs the dead-letter commands (`node packages/kit/dist/cli/dead-letters.js dead-letters …`).
# Install scripts are skipped: the Prisma clients are generated below and no engine is downloaded.

# --- build: all dependencies, generated Prisma clients, compiled JavaScript --------------------------------
FROM node:20-slim AS build
ARG SERVICE
WORKDIR /app
# Manifests first, so the dependency layer is reused until a manifest or the lock file changes.
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY packages/kit/package.json packages/kit/
COPY packages/migrator/package.json packages/migrator/
COPY gateway/package.json gateway/
COPY services/telephony/package.json services/telephony/
COPY services/leads/package.json services/leads/
COPY services/recall/package.json services/recall/
COPY services/mcp/package.json services/mcp/
COPY services/webhooks/package.json services/webhooks/
COPY services/console/package.json services/console/
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
# /out holds what the runtime stage takes: the compiled deployable with its Lua scripts (read at start from
# <dir>/lua), proto, kit with its Lua scripts (kit's rate limiter reads packages/kit/lua), main.js pointing at
# its entry, and for the gateway the migrator with every schema.
RUN set -e; \
    test -n "$SERVICE" || { echo 'build with --build-arg SERVICE=<gateway|telephony|leads|recall|mcp|webhooks|console>' >&2; exit 1; }; \
    if [ "$SERVICE" = gateway ]; then dir=gateway; else dir="services/$SERVICE"; fi; \
    test -f "$dir/package.json" || { echo "no deployable $SERVICE" >&2; exit 1; }; \
    npm run generate; \
    npm run build -w proto -w packages/kit -w "$dir"; \
    mkdir -p /out; \
    cp -r --parents proto/dist packages/kit/dist packages/kit/lua "$dir/dist" /out/; \
    if [ -d "$dir/lua" ]; then cp -r --parents "$dir/lua" /out/; fi; \
    if [ "$SERVICE" = gateway ]; then \
      cp -r --parents packages/migrator/bin packages/migrator/src gateway/prisma services/*/prisma /out/; \
    fi; \
    ln -s "$dir/dist/main.js" /out/main.js

# --- runtime: production dependencies and the compiled output only ----------------------------------------
FROM node:20-slim AS runtime
ARG PORT
ENV NODE_ENV=production
ENV PORT=${PORT}
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/proto/package.json proto/
COPY --from=build /app/packages/kit/package.json packages/kit/
COPY --from=build /app/packages/migrator/package.json packages/migrator/
COPY --from=build /app/gateway/package.json gateway/
COPY --from=build /app/services/telephony/package.json services/telephony/
COPY --from=build /app/services/leads/package.json services/leads/
COPY --from=build /app/services/recall/package.json services/recall/
COPY --from=build /app/services/mcp/package.json services/mcp/
COPY --from=build /app/services/webhooks/package.json services/webhooks/
COPY --from=build /app/services/console/package.json services/console/
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /out/ ./
USER node
EXPOSE ${PORT}
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# main.js links to the deployable's dist/main.js; node resolves the link, so its imports resolve there.
CMD ["node", "main.js"]
