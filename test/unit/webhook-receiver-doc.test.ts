import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import ts from 'typescript';
import { REPO_ROOT } from '#service/repository-root.js';
import { newSecret, signatureHeader } from '#shared/webhooks/secrets.js';

// docs/api.md shows a receiver how to verify a delivery with the official library: that very
// code, run on a delivery signed as the dispatcher signs it, answers the event, and refuses one
// signed with another secret.
const API_MD = readFileSync(join(REPO_ROOT, 'docs/api.md'), 'utf8');
const section = API_MD.slice(API_MD.indexOf('## Webhooks'));
const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

const runSnippet = (secret: string, rawBody: string, headers: Record<string, string>): unknown => {
  const code = ts.transpileModule(snippet.replace(/^import .*$/m, ''), {
    compilerOptions: { target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const run = new Function('Webhook', 'process', 'rawBody', 'request', `${code}\nreturn event;`);
  return run(Webhook, { env: { WEBHOOK_SECRET: secret } }, rawBody, { headers });
};

describe("the receiver's verification in docs/api.md", () => {
  test('verifies a delivery signed as the dispatcher signs it, and refuses one signed with another secret', () => {
    expect(snippet).toContain("from 'standardwebhooks'");
    const secret = newSecret();
    const body = JSON.stringify({
      type: 'user.erased',
      timestamp: '2026-12-07T10:00:00Z',
      data: { id: 'erasure:e1:completed' },
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = (signedWith: string) => ({
      'webhook-id': 'erasure:e1:completed',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader([signedWith], 'erasure:e1:completed', timestamp, body),
    });
    expect(runSnippet(secret, body, headers(secret))).toEqual(JSON.parse(body));
    expect(() => runSnippet(secret, body, headers(newSecret()))).toThrow();
  });
});
