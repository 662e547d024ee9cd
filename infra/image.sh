#!/bin/sh
# The install steps of the ioswarm image (Dockerfile), in one place so they can be run and
# tested without a container runtime (test/package/image.test.js runs them in a temp prefix):
#   sh infra/image.sh pack DIR            npm pack this checkout into DIR, as npm would publish it
#                                         (prepack runs tsc for the type declarations: needs npm ci first)
#   sh infra/image.sh install TGZ PREFIX  install that tarball and its production dependencies
#                                         globally under PREFIX: the command is PREFIX/bin/ioswarm
set -eu
case "${1:-}" in
  pack)
    mkdir -p "$2"
    npm pack --silent --pack-destination "$2"
    ;;
  install)
    # --prefer-offline: packages already in npm's cache are not fetched again.
    npm install --global --prefix "$3" --omit=dev --no-audit --no-fund --prefer-offline "$2"
    ;;
  *)
    echo "usage: sh infra/image.sh pack DIR | install TGZ PREFIX" >&2
    exit 2
    ;;
esac
