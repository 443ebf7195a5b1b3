import type { RouteFuzzSpec } from './bad-requests.js';

/** The routes of the links in emails, in the order of ROUTES. */
export const LINK_ROUTE_SPECS: RouteFuzzSpec[] = [
  {
    name: 'createLinks',
    path: '/v2/notifications/links/create',
    valid: { organizationId: 'org-1', userIds: ['u1'], documentId: 'doc-1', category: 'comment', channel: 'email' },
    required: ['organizationId', 'userIds'],
    extraMutations: [
      (d) => {
        d.expiresInDays = 366;
      },
      (d) => {
        d.expiresInDays = 0.5;
      },
      (d) => {
        d.channel = 'sms';
      },
      (d) => {
        d.category = 'Comment';
      },
      (d) => {
        d.documentId = '';
      },
      (d) => {
        d.userIds = [];
      },
    ],
  },
  {
    name: 'revokeLinks',
    path: '/v2/notifications/links/revoke',
    valid: { organizationId: 'org-1', userIds: ['u1'] },
    required: ['organizationId', 'userIds'],
    extraMutations: [
      (d) => {
        d.userIds = Array.from({ length: 1001 }, (_, i) => `u${i}`);
      },
      (d) => {
        d.userId = 'u1';
      },
    ],
  },
];
