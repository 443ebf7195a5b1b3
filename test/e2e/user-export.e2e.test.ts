import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createClient, type ExportRecord, type ServiceClient } from '#client/index.js';
import { textSha256 } from '#shared/consent/consent.js';
import { eventually } from '../support/eventually.js';
import { createLinks, openPage, postForm } from '../support/links.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// Contract 14.2 over HTTP through the local twin: users/export answers the user's entries, schedule,
// changes with their evidence and the consent texts, the typed client pages through it, and after
// an erasure completed the export is the erasure's record alone.

let service: LocalService;
let client: ServiceClient;

beforeAll(async () => {
  service = await startLocalService();
  client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey, token: service.token });
}, 60_000);
afterAll(async () => {
  await service?.close();
});

const ORG = 'export-org';
const TEXT = 'Yes, email me about comments on my documents.';

const records = async (userId: string): Promise<ExportRecord[]> => {
  const all: ExportRecord[] = [];
  for await (const record of client.exportUserRecords({ organizationId: ORG, userId })) all.push(record);
  return all;
};

test("the user's entries, schedule, changes with evidence and the texts they cite; after an erasure, its record alone", async () => {
  await client.setConfig({
    organizationId: ORG,
    userIds: ['eve'],
    documentIds: ['d1'],
    config: { email: 'ALL' },
    consent: { source: 'signup-form', text: TEXT },
  });
  await client.setConfig({
    organizationId: ORG,
    userIds: ['eve'],
    config: { slack: 'NONE' },
    consent: { source: 'settings', text: TEXT },
  });
  await client.setSchedule({ organizationId: ORG, userIds: ['eve'], schedule: { timeZone: 'Europe/Paris' } });
  const exported = await eventually(
    () => records('eve'),
    (list) => list.filter((record) => record.kind === 'change').length >= 3,
  );
  const kinds = exported.map((record) => record.kind);
  expect(kinds.filter((kind) => kind === 'entry')).toHaveLength(2);
  expect(kinds.filter((kind) => kind === 'schedule')).toHaveLength(1);
  expect(kinds.filter((kind) => kind === 'change')).toHaveLength(3);
  // One text, cited by two changes, once.
  expect(exported.filter((record) => record.kind === 'consentText')).toEqual([
    { kind: 'consentText', sha256: textSha256(TEXT), text: TEXT },
  ]);
  expect(exported).toContainEqual(
    expect.objectContaining({ kind: 'entry', documentId: 'd1', scope: 'document', config: { email: 'ALL' } }),
  );
  expect(exported).toContainEqual({ kind: 'schedule', schedule: { timeZone: 'Europe/Paris' } });
  expect(exported).toContainEqual(
    expect.objectContaining({
      kind: 'change',
      documentId: 'd1',
      evidence: expect.objectContaining({ via: 'api', source: 'signup-form', textSha256: textSha256(TEXT) }),
    }),
  );

  // The route answers the same page the client read, with the message of the contract.
  const { status, body } = await service.call('/v2/organizations/users/export', { organizationId: ORG, userId: 'eve' });
  expect(status).toBe(200);
  expect(body.result?.message).toBe('User data exported successfully.');
  expect((body.result?.data as { records: ExportRecord[] } | undefined)?.records).toEqual(exported);

  const { erasureId } = await client.eraseUser({ organizationId: ORG, userId: 'eve' });
  await eventually(
    () => client.getErasureStatus({ organizationId: ORG, erasureId }),
    (erasure) => erasure.status === 'completed',
  );
  const afterwards = await records('eve');
  expect(afterwards).toEqual([
    expect.objectContaining({ kind: 'erasure', erasureId, userId: 'eve', status: 'completed', erased: 2 }),
  ]);
}, 90_000);

test('a cursor of another user is refused', async () => {
  const { status, body } = await service.call('/v2/organizations/users/export', {
    organizationId: ORG,
    userId: 'nobody',
    cursor: 'k1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  });
  expect({ status, code: body.error?.status }).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
});

test('"Download my data" on the preference page: the same records as one JSON file, to save', async () => {
  await client.setConfig({
    organizationId: ORG,
    userIds: ['fay'],
    config: { email: 'NONE' },
    consent: { source: 'settings', text: TEXT },
  });
  const links = await createLinks(service, { organizationId: ORG, userIds: ['fay'] });
  const url = links.fay?.preferencesUrl as string;
  expect((await openPage(url)).html).toContain('name="download" value="data"');
  const api = await eventually(
    () => records('fay'),
    (list) => list.some((record) => record.kind === 'consentText'),
  );
  const file = await postForm(url, 'download=data');
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(file.headers.get('content-disposition')).toBe('attachment; filename="my-notification-data.json"');
  expect(file.headers.get('cache-control')).toBe('no-store');
  const saved = JSON.parse(file.html) as { organizationId: string; userId: string; records: ExportRecord[] };
  expect(saved).toMatchObject({ organizationId: ORG, userId: 'fay' });
  expect(saved.records).toEqual(api);
  // Anything beside the one field, or another value: the 400 page, nothing answered.
  for (const body of ['download=all', 'download=data&org:email~default=ALL', 'download=data&download=data']) {
    expect({ body, status: (await postForm(url, body)).status }).toEqual({ body, status: 400 });
  }
}, 60_000);
