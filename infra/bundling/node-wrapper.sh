#!/bin/sh
# Lambda starts the Node.js runtime through this script (AWS_LAMBDA_EXEC_WRAPPER, set by
# ServiceFunction; the stack's layer holds it: infra/constructs/node-wrapper-layer.ts): "$1" is
# node, the rest its arguments. It adds V8 flags, which NODE_OPTIONS refuses ("is not allowed in
# NODE_OPTIONS").
#
# --min-semi-space-size: V8's young generation starts at 1 MB and grows only after scavenges,
# so a cold start (the bundle, the SDK clients, the first calls) runs four of them before its
# first answer (node --trace-gc, in the bench); started at 16 MB per semi-space it runs none.
# Lambda's bootstrap sets the maximum (--max-semi-space-size, memory/20: 25 MB at 512 MB); where
# a maximum is smaller, V8 starts at the maximum. Measured by `npm run bench -- --only=bundles`
# (docs/development.md, Node's young generation).
node="$1"
shift
exec "$node" --min-semi-space-size=16 "$@"
