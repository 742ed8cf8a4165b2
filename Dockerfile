# hcd's container image (docs/install.md): Debian's Node.js, the production dependencies, the compiled
# server; runs as uid/gid 10001 with its store in the volume /data. Build: docker build -t hcd:1.0.0 .
# Nothing here compiles native code: the build stage has no compiler, and `npm ci` passes there because
# every native module hcd uses (lmdb, msgpackr-extract, fs-native-extensions) ships prebuilt.

# The release, as package.json says (test/ops/compose.test.ts checks they agree)
ARG HCD_VERSION=1.0.0

FROM docker.io/library/debian:trixie-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# the proof that no compiler is needed: there is none
RUN for tool in cc c++ gcc g++ clang make; do \
      if command -v "$tool" >/dev/null; then echo "a compiler is in the build stage: $tool" >&2; exit 1; fi; \
    done
# npm trusts the system's CAs (a proxy's CA added to the base image too), in this stage only
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
WORKDIR /src
COPY package.json package-lock.json ./
# the dependencies' install scripts run (`npm rebuild`); the root's `prepare` (the build) waits for the sources
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild --foreground-scripts
COPY . .
RUN node node_modules/typescript/bin/tsc -p tsconfig.json \
 && npm prune --omit=dev --no-audit --no-fund \
 && mkdir /out \
 && cp -a package.json bin node_modules dist /out/ \
 && find /out/dist -name '*.map' -delete \
 && cp -a http/dashboard/static /out/dist/http/dashboard/static

FROM docker.io/library/debian:trixie-slim
ARG HCD_VERSION
# where the image's sources are published, and their licence (an SPDX expression): set by the publisher
ARG HCD_SOURCE_URL=
ARG HCD_LICENSE=NOASSERTION
LABEL org.opencontainers.image.title="hcd" \
      org.opencontainers.image.description="Self-hosted, Healthchecks-compatible monitoring for cron jobs and background workers" \
      org.opencontainers.image.version="${HCD_VERSION}" \
      org.opencontainers.image.source="${HCD_SOURCE_URL}" \
      org.opencontainers.image.licenses="${HCD_LICENSE}"
# Debian's Node.js (20.19 or newer, patched by Debian's security team) and the CAs its TLS trusts
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 hcd \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin hcd \
 && install -d -o 10001 -g 10001 -m 0700 /data
COPY --from=build /out /app
WORKDIR /app
ENV NODE_ENV=production \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8000
VOLUME /data
EXPOSE 8000
USER 10001:10001
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["node", "bin/healthcheck.mjs"]
# The first instance admin (no token to paste; docs/install.md):
#   echo "$PASSWORD" | docker exec -i hcd node bin/hcd.mjs user create --url http://localhost:8000 --email you@example.org --admin
# SIGTERM: stop accepting, finish in-flight requests (10 s at most), store pending writes, exit 0
STOPSIGNAL SIGTERM
CMD ["node", "dist/app/main.js"]
