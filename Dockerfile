# Build stage: install everything, compile TypeScript.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The TypeScript client package (@access-gateway/signing), an npm workspace the gateway depends on:
# npm ci links it into node_modules and its prepare script compiles its dist/.
COPY clients/typescript ./clients/typescript
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY gateway ./gateway
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json

# Runtime stage: production dependencies and the compiled gateway only, as a non-root user.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production GATEWAY_ENV=production GATEWAY_HOST=0.0.0.0 GATEWAY_ADMIN_HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
COPY clients/typescript/package.json ./clients/typescript/
# --ignore-scripts: the one install script is the client package's prepare, which needs TypeScript (a
# devDependency); its compiled dist/ comes from the build stage.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/clients/typescript/dist ./clients/typescript/dist
COPY config ./config
COPY policies ./policies
COPY dashboard ./dashboard
# The gRPC decision listener's protocol buffers (loaded only when GATEWAY_DECISION_GRPC_PORT is set).
COPY proto ./proto
USER node
EXPOSE 8080 8081
# Liveness, not readiness: a container whose Redis is down is alive (it answers 503 and recovers by
# itself); restarting it would not bring Redis back. Load balancers ask /readyz.
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:8081/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Exactly what `npm start` runs once the build is in place.
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "dist/gateway/main.js"]
