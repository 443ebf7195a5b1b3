import type { RouteFuzzSpec } from './bad-requests.js';

/** The webhook routes, in the order of ROUTES. */
export const WEBHOOK_ROUTE_SPECS: RouteFuzzSpec[] = [
  {
    name: 'setWebhooks',
    path: '/v2/organizations/webhooks/set',
    valid: { organizationId: 'org-1', endpoints: [{ url: 'https://hooks.example.com/in' }] },
    required: ['organizationId', 'endpoints'],
    // No endpoint at all is a list like any other.
    accepted: { endpoints: [[]] },
    extraMutations: [
      (d) => {
        d.endpoints = Array.from({ length: 11 }, () => ({ url: 'https://hooks.example.com/in' }));
      },
      (d) => {
        d.endpoints = [{ url: `https://hooks.example.com/${'x'.repeat(2048)}` }];
      },
      (d) => {
        d.endpoints = [{ url: 'http://hooks.example.com/in' }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://169.254.169.254/latest/meta-data' }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://[::ffff:10.0.0.1]/in' }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://hooks.example.com/in', eventTypes: [] }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://hooks.example.com/in', eventTypes: ['config.changed'] }];
      },
      (d) => {
        d.endpoints = [{ id: 'ep_short', url: 'https://hooks.example.com/in' }];
      },
      (d) => {
        d.endpoints = [{ url: 'https://hooks.example.com/in', secret: 'whsec_mine' }];
      },
    ],
  },
  {
    name: 'getWebhooks',
    path: '/v2/organizations/webhooks/get',
    valid: { organizationId: 'org-1' },
    required: ['organizationId'],
  },
  {
    name: 'rotateWebhookSecret',
    path: '/v2/organizations/webhooks/rotate-secret',
    valid: { organizationId: 'org-1', endpointId: 'ep_AAAAAAAAAAAAAAAA' },
    required: ['organizationId', 'endpointId'],
    extraMutations: [
      (d) => {
        d.endpointId = 'ep_AAAAAAAAAAAAAAA#';
      },
    ],
  },
  {
    name: 'getWebhookDeliveries',
    path: '/v2/organizations/webhooks/deliveries',
    valid: { organizationId: 'org-1', endpointId: 'ep_AAAAAAAAAAAAAAAA' },
    required: ['organizationId', 'endpointId'],
    extraMutations: [
      (d) => {
        d.cursor = 'not-a-cursor';
      },
      (d) => {
        d.cursor = Buffer.from('H#org-1#u1').toString('base64url');
      },
      (d) => {
        d.cursor = 'x'.repeat(201);
      },
    ],
  },
];
