import type { RouteFuzzSpec } from './bad-requests.js';

/** The organization routes (policy, branding, migration, erasure, exports, imports), in the order of ROUTES. */
export const ORGANIZATION_ROUTE_SPECS: RouteFuzzSpec[] = [
  {
    name: 'setPolicy',
    path: '/v2/organizations/policy/set',
    valid: { organizationId: 'org-1', policy: { channels: { email: { value: 'MINE' } } } },
    required: ['organizationId', 'policy'],
    accepted: { policy: [{}] },
    extraMutations: [
      (d) => {
        d.policy = { categories: { Comment: { label: 'Comments' } } };
      },
      (d) => {
        d.policy = { categories: { comment: { label: '' } } };
      },
      (d) => {
        d.policy = { channels: { email: { value: 'MINE', locked: 'yes' } } };
      },
      (d) => {
        d.policy = {
          categories: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`c${i}`, { label: `C${i}` }])),
        };
      },
      (d) => {
        d.expectedVersion = -1;
      },
    ],
  },
  {
    name: 'getPolicy',
    path: '/v2/organizations/policy/get',
    valid: { organizationId: 'org-1' },
    required: ['organizationId'],
  },
  {
    name: 'setBranding',
    path: '/v2/organizations/branding/set',
    valid: { organizationId: 'org-1', branding: { displayName: 'Org One', accentColor: '#0b5cad' } },
    required: ['organizationId', 'branding'],
    accepted: { branding: [null] },
    extraMutations: [
      (d) => {
        d.branding = { displayName: 'Org\u202Eeno' };
      },
      (d) => {
        d.branding = { displayName: 'Org', accentColor: '#ffff00' };
      },
      (d) => {
        d.branding = { displayName: 'Org', logo: { contentType: 'image/svg+xml', data: 'PHN2Zy8+' } };
      },
      (d) => {
        d.branding = { displayName: 'Org', logo: { contentType: 'image/png', data: 'PHN2Zy8+' } };
      },
      (d) => {
        d.branding = { displayName: 'Org', embedOrigins: ['http://app.example'] };
      },
    ],
  },
  {
    name: 'getBranding',
    path: '/v2/organizations/branding/get',
    valid: { organizationId: 'org-1' },
    required: ['organizationId'],
  },
  {
    name: 'migrateDocument',
    path: '/v2/organizations/documents/migrate',
    valid: { organizationId: 'org-1', documentId: 'doc-a', newDocumentId: 'doc-b' },
    required: ['organizationId', 'documentId', 'newDocumentId'],
    extraMutations: [
      (d) => {
        d.newDocumentId = d.documentId;
      },
      (d) => {
        d.documentIds = [d.documentId];
      },
    ],
  },
  {
    name: 'getMigrationStatus',
    path: '/v2/organizations/documents/migrate/status',
    valid: { organizationId: 'org-1', migrationId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    required: ['organizationId', 'migrationId'],
    extraMutations: [
      (d) => {
        d.migrationId = 'x'.repeat(257);
      },
    ],
  },
  {
    name: 'eraseUser',
    path: '/v2/organizations/users/erase',
    valid: { organizationId: 'org-1', userId: 'u1' },
    required: ['organizationId', 'userId'],
    extraMutations: [
      (d) => {
        d.userIds = [d.userId];
      },
    ],
  },
  {
    name: 'getErasureStatus',
    path: '/v2/organizations/users/erase/status',
    valid: { organizationId: 'org-1', erasureId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    required: ['organizationId', 'erasureId'],
    extraMutations: [
      (d) => {
        d.erasureId = '';
      },
    ],
  },
  {
    name: 'exportUser',
    path: '/v2/organizations/users/export',
    valid: { organizationId: 'org-1', userId: 'u1' },
    required: ['organizationId', 'userId'],
    extraMutations: [
      (d) => {
        d.cursor = '';
      },
      (d) => {
        d.cursor = 'k1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      },
      (d) => {
        d.cursor = 'x'.repeat(70_000);
      },
      (d) => {
        d.cursor = 7;
      },
    ],
  },
  {
    name: 'createExport',
    path: '/v2/organizations/exports/create',
    valid: { organizationId: 'org-1', format: 'jsonl' },
    required: ['organizationId', 'format'],
    extraMutations: [
      (d) => {
        d.format = 'xml';
      },
      (d) => {
        d.documentIds = [];
      },
      (d) => {
        d.documentIds = Array.from({ length: 31 }, (_, i) => `doc-${i}`);
      },
    ],
  },
  {
    name: 'getExportStatus',
    path: '/v2/organizations/exports/status',
    valid: { organizationId: 'org-1', exportId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    required: ['organizationId', 'exportId'],
    extraMutations: [
      (d) => {
        d.exportId = '';
      },
    ],
  },
  {
    name: 'createImport',
    path: '/v2/organizations/imports/create',
    valid: { organizationId: 'org-1', format: 'csv' },
    required: ['organizationId', 'format'],
    extraMutations: [
      (d) => {
        d.format = 'xlsx';
      },
      (d) => {
        d.compression = 'zip';
      },
      (d) => {
        d.dryRun = 'yes';
      },
    ],
  },
  {
    name: 'getImportStatus',
    path: '/v2/organizations/imports/status',
    valid: { organizationId: 'org-1', importId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' },
    required: ['organizationId', 'importId'],
    extraMutations: [
      (d) => {
        d.importId = '';
      },
    ],
  },
];
