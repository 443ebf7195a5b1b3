import type { RouteFuzzSpec } from './bad-requests.js';
import { LINK_ROUTE_SPECS } from './link-route-specs.js';
import { ORGANIZATION_ROUTE_SPECS } from './organization-route-specs.js';
import { PREFERENCE_ROUTE_SPECS } from './preference-route-specs.js';
import { WEBHOOK_ROUTE_SPECS } from './webhook-route-specs.js';

/**
 * Every route with a valid body for a credential granted org-1: the seeds every bad-input
 * generator mutates. `name` is the route's operationId; a test holds this list to the routes.
 */
export const ROUTE_FUZZ_SPECS: RouteFuzzSpec[] = [
  ...PREFERENCE_ROUTE_SPECS,
  ...ORGANIZATION_ROUTE_SPECS,
  ...LINK_ROUTE_SPECS,
  ...WEBHOOK_ROUTE_SPECS,
];
