#!/bin/sh
# Lambda starts the Node.js runtime through this script (AWS_LAMBDA_EXEC_WRAPPER, set by
# ServiceFunction): "$1" is node, the rest its arguments. It adds V8 flags, which NODE_OPTIONS
# refuses ("is not allowed in NODE_OPTIONS").
#
# --min-semi-space-size: V8's young generation starts at 1 MB and grows only after scavenges,
# so a cold start (node's own start, the bundle, the SDK clients, the first calls) runs four of
# them before its first answer (node --trace-gc); started at 16 MB (per semi-space; Lambda's own
# bootstrap lets it grow to memory/20, 25 MB at 512 MB) it runs none. Where the maximum is smaller (a function under 320 MB), V8 starts at the maximum.
# Measured by `npm run bench -- --only=bundles` (docs/development.md).
node="$1"
shift
exec "$node" --min-semi-space-size=16 "$@"
