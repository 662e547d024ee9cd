# The ioswarm image the Kubernetes manifests run (infra/k8s: image ioswarm:0.1.0), built from
# this checkout; push it to your registry (infra/README.md, "Kubernetes"):
#   docker build -t ioswarm:0.1.0 .
#   docker tag ioswarm:0.1.0 registry.example.com/ioswarm:0.1.0 && docker push registry.example.com/ioswarm:0.1.0
# The install steps are infra/image.sh, which test/package/image.test.js runs without Docker.

# Stage 1: the package as npm would publish it (npm ci first: prepack builds the type
# declarations with TypeScript, a dev dependency).
FROM node:20-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN sh infra/image.sh pack /pack

# Stage 2: that tarball installed with its production dependencies only, run as the image's
# unprivileged "node" user (uid 1000, as the manifests' securityContext expects).
FROM node:20-slim
COPY --from=pack /pack/ /pack/
COPY infra/image.sh /tmp/image.sh
RUN sh /tmp/image.sh install /pack/ioswarm-*.tgz /usr/local && rm -rf /pack /tmp/image.sh /root/.npm
USER node
WORKDIR /home/node
ENTRYPOINT ["ioswarm"]
CMD ["--help"]
