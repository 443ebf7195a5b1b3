import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { zipSync } from 'fflate';
import { REPO_ROOT } from '#service/repository-root.js';

/** The script Lambda starts node through (why: the script itself). */
export const NODE_WRAPPER_SCRIPT = join(REPO_ROOT, 'infra/bundling/node-wrapper.sh');
/** Its name in the layer, at the layer's root. */
export const NODE_WRAPPER_FILE = 'node-wrapper.sh';
/** Where a function finds it: Lambda extracts layers into /opt. */
export const NODE_WRAPPER_PATH = `/opt/${NODE_WRAPPER_FILE}`;

/**
 * The layer's zip: the script, executable (mode 0755 in the zip's own attributes). A zip file is
 * uploaded as it is, so its executable bit is part of its bytes and of its asset hash: a directory
 * asset is zipped at publish time from the files' modes, which a copy of cdk.out through a CI
 * artifact can drop, leaving every function unable to start and no change of hash to upload a
 * fixed one. Dated 1980-01-01 in local time (zip dates are local): the same bytes on every machine.
 */
export const nodeWrapperZipBytes = (script: Uint8Array = readFileSync(NODE_WRAPPER_SCRIPT)): Uint8Array => {
  // A checkout that turned LF into CRLF (.gitattributes asks git not to) would ship a script
  // /bin/sh cannot run: "node\r" is not a command, and no function would start.
  if (script.includes(0x0d)) {
    throw new Error(
      'infra/bundling/node-wrapper.sh has CRLF line endings: /bin/sh in Lambda could not run it. Check it out with LF.',
    );
  }
  const epoch = new Date(1980, 0, 1);
  return zipSync(
    { [NODE_WRAPPER_FILE]: [script, { level: 0, os: 3, attrs: 0o100755 << 16, mtime: epoch }] },
    { mtime: epoch },
  );
};

/** The zip written where the asset is staged from, named by its content. */
const nodeWrapperZip = (): string => {
  const zip = nodeWrapperZipBytes();
  const dir = join(tmpdir(), 'notification-preferences-node-wrapper');
  const file = join(dir, `node-wrapper-${createHash('sha256').update(zip).digest('hex').slice(0, 16)}.zip`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed: another synthesis at the same time never reads half a zip.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, zip);
    renameSync(partial, file);
  }
  return file;
};

/**
 * The stack's one layer holding the node wrapper, made on first use: every ServiceFunction of the
 * stack names it (AWS_LAMBDA_EXEC_WRAPPER=/opt/node-wrapper.sh).
 */
export const nodeWrapperLayer = (scope: Construct): LayerVersion => {
  const stack = Stack.of(scope);
  const id = 'NodeWrapperLayer';
  const existing = stack.node.tryFindChild(id);
  if (existing) return existing as LayerVersion;
  return new LayerVersion(stack, id, {
    code: Code.fromAsset(nodeWrapperZip()),
    description: 'Starts node with V8 flags NODE_OPTIONS refuses (infra/bundling/node-wrapper.sh)',
    compatibleRuntimes: [Runtime.NODEJS_24_X],
    compatibleArchitectures: [Architecture.ARM_64],
    // A function's published versions keep theirs; $LATEST takes the new one at each deployment.
    removalPolicy: RemovalPolicy.DESTROY,
  });
};
