# One image for the service's four processes (gateway, graph component, ingestion component, worker) and the
# model-host stand-in; docker-compose.yml picks the entry point. TypeScript runs through tsx; the one build step is the web explorer's bundle.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY . .
# The worker's clone folder: a named volume mounted here starts as a copy of it, owned by `node` like the process.
RUN mkdir -p /var/lib/ckg/clones && chown -R node:node /var/lib/ckg
# The web explorer's bundle (web/dist, served by the gateway at /).
RUN node --import tsx scripts/build-web.ts --force
USER node
ENV NODE_ENV=production
CMD ["node", "--import", "tsx", "gateway/main.ts"]
