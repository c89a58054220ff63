# avalanchego-exporter: multi-stage build on the official Node.js image of a supported LTS line,
# pinned to a release (Node.js 20 left maintenance in April 2026). CI runs the fast test lane on this
# very version (.ci/run reads it here); test/deploy/image.test.ts keeps the pin and the line's support.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev

FROM node:24.21.0-bookworm-slim
ARG REVISION=unknown
ENV NODE_ENV=production AVALANCHEGO_EXPORTER_REVISION=${REVISION}
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json config.example.yaml ./
USER node
EXPOSE 10650
# The healthcheck reads the address and scheme (--web.listen-address, --web.config.file) from the
# exporter's own command line: `docker run … --web.listen-address=:9999` needs no other change.
HEALTHCHECK --interval=30s --timeout=3s CMD ["node", "dist/main.js", "healthcheck"]
ENTRYPOINT ["node", "dist/main.js"]
# Without a config file the exporter polls http://127.0.0.1:9650 (the node in the same network namespace).
CMD ["--web.listen-address=:10650"]
