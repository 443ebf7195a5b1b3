import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { runLinkKeysCommand } from '#tools/link-keys/command.js';
import { createLinks, openPage } from '../support/links.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The rotation procedure of docs/operations.md (Link keys), end to end against the twin's Secrets
// Manager stand-in: add a key, make it current, retire the old one. A link made before the rotation
// keeps working; once its key is retired it answers the 404 page; the key file stays 0600 and the
// command never prints a key.
const dataDir = mkdtempSync(join(tmpdir(), 'link-keys-'));
let service: LocalService;

beforeAll(async () => {
  // No cache: each request reads the keys, as a function does once its cache time has passed.
  service = await startLocalService({ inMemory: false, dataDir, env: { LINK_KEYS_CACHE_SECONDS: '0' } });
}, 60_000);
afterAll(async () => {
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const run = async (...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runLinkKeysCommand([...argv, '--data-dir', dataDir], {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

const keyFile = () => join(dataDir, 'link-keys.json');
const materials = () =>
  Object.entries(JSON.parse(readFileSync(keyFile(), 'utf8')) as Record<string, string>)
    .filter(([name]) => name.startsWith('key:'))
    .map(([, material]) => material);

test('add, use, retire: old links work until their key is retired, new links use the new key', async () => {
  expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
  const before = await createLinks(service, { organizationId: 'acme', userIds: ['ann'] });
  const oldLink = before.ann?.preferencesUrl as string;
  expect((await openPage(oldLink)).status).toBe(200);

  const added = await run('add', '--id', 'k2');
  expect(added).toMatchObject({ code: 0 });
  expect(added.out).toContain('Added key k2');
  // Added, not yet used: new links still come from k1.
  const stillK1 = await createLinks(service, { organizationId: 'acme', userIds: ['bo'] });
  expect((await run('use', 'k2')).code).toBe(0);
  const after = await createLinks(service, { organizationId: 'acme', userIds: ['cy'] });
  const newLink = after.cy?.preferencesUrl as string;
  const kidOf = (url: string) =>
    JSON.parse(Buffer.from((url.split('/').pop() as string).split('.')[0] as string, 'base64url').toString()).kid;
  expect([kidOf(stillK1.bo?.preferencesUrl as string), kidOf(newLink)]).toEqual(['k1', 'k2']);

  // Both keys open their links.
  expect((await openPage(oldLink)).status).toBe(200);
  expect((await openPage(newLink)).status).toBe(200);

  const listed = await run('list', '--json');
  const keys = (JSON.parse(listed.out) as { keys: { id: string; current: boolean; retireAfter?: string }[] }).keys;
  expect(keys.map(({ id, current }) => ({ id, current }))).toEqual([
    { id: 'k1', current: false },
    { id: 'k2', current: true },
  ]);
  // k1 may go once its last link has expired: 365 days (and a day) from now.
  expect(Date.parse(keys[0]?.retireAfter as string) - Date.now()).toBeGreaterThan(365 * 86_400_000);

  // Too early, and never the current key.
  const early = await run('retire', 'k1');
  expect(early.code).toBe(1);
  expect(early.err).toContain('--force');
  expect((await run('retire', 'k2')).code).toBe(1);
  expect((await openPage(oldLink)).status).toBe(200);

  // A leaked key is retired at once: its links answer the 404 page, the others work.
  expect((await run('retire', 'k1', '--force')).code).toBe(0);
  expect((await openPage(oldLink)).status).toBe(404);
  expect((await openPage(newLink)).status).toBe(200);

  // No key material in anything the command printed; the file stays private.
  const printed = [added, listed, early].map((result) => result.out + result.err).join('\n');
  for (const material of materials()) expect(printed).not.toContain(material);
  expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
});

test('invalid command lines exit 2', async () => {
  expect((await run('use')).code).toBe(2);
  expect((await run('add', '--id', 'Not Valid')).code).toBe(2);
  expect((await run('frobnicate')).code).toBe(2);
  // A value missing after an option: one line and where to look, as the other tools say it.
  expect(await run('add', '--id')).toMatchObject({
    code: 2,
    err: expect.stringMatching(/^link-keys: Option '--id' [\s\S]*\nRun with --help for usage\.$/),
  });
});
