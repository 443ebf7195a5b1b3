import type { ServiceClient, SetConfigInput, SetPolicyInput } from '#client/index.js';

/**
 * A realistic organization for the local twin: 20 people in three teams, four documents,
 * organization-level defaults for two teams and document-level settings on every document, so
 * that config/get shows all three layers (document, organization, deployment default) and a
 * migration has entries to move; a policy of three categories, security mail and inbox locked
 * on, and a category layer, so that a get with a category shows the policy's layers. Fixed data:
 * seeding twice gives the same state (the policy one version later).
 */
export const ORGANIZATION_ID = 'northwind';

const ENGINEERING = ['ada', 'chen', 'emeka', 'gustav', 'ivan', 'kemal', 'mateo', 'oskar', 'quinn', 'sami'];
const LEADERSHIP = ['bruno', 'hana', 'priya'];
const PRODUCT = ['dara', 'farah', 'jun', 'lena', 'nadia', 'rosa', 'tove'];
export const USERS = [...ENGINEERING, ...LEADERSHIP, ...PRODUCT].sort();

export const DOCUMENTS = ['roadmap-2027', 'launch-plan', 'design-system', 'incident-review'] as const;

interface Layer {
  /** What the layer stands for, printed by the seed. */
  label: string;
  request: Omit<SetConfigInput, 'organizationId'>;
}

export const LAYERS: Layer[] = [
  {
    label: 'engineering: slack MINE, email NONE (organization-wide)',
    request: { userIds: ENGINEERING, config: { slack: 'MINE', email: 'NONE' } },
  },
  {
    label: 'leadership: every channel ALL (organization-wide)',
    request: { userIds: LEADERSHIP, config: { inbox: 'ALL', email: 'ALL', slack: 'ALL' } },
  },
  {
    label: 'roadmap-2027: leadership and product leads follow every email',
    request: {
      userIds: [...LEADERSHIP, 'dara', 'farah', 'lena'],
      documentIds: ['roadmap-2027'],
      config: { email: 'ALL' },
    },
  },
  {
    label: 'roadmap-2027: ada mutes the inbox but follows it on slack',
    request: { userIds: ['ada'], documentIds: ['roadmap-2027'], config: { inbox: 'NONE', slack: 'ALL' } },
  },
  {
    label: 'launch-plan: the launch team on slack, inbox only when involved',
    request: {
      userIds: ['farah', 'jun', 'nadia', 'rosa', 'tove', 'ada'],
      documentIds: ['launch-plan'],
      config: { inbox: 'MINE', slack: 'ALL' },
    },
  },
  {
    label: 'launch-plan: chen wants email when involved',
    request: { userIds: ['chen'], documentIds: ['launch-plan'], config: { email: 'MINE' } },
  },
  {
    label: 'design-system: designers see everything in the inbox, no email',
    request: {
      userIds: ['dara', 'lena', 'quinn', 'tove'],
      documentIds: ['design-system'],
      config: { inbox: 'ALL', email: 'NONE' },
    },
  },
  {
    label: 'incident-review: on-call engineers on every channel',
    request: {
      userIds: ['emeka', 'gustav', 'ivan'],
      documentIds: ['incident-review'],
      config: { inbox: 'ALL', email: 'ALL', slack: 'ALL' },
    },
  },
  {
    label: 'incident-review and launch-plan: priya only when involved on slack',
    request: { userIds: ['priya'], documentIds: ['incident-review', 'launch-plan'], config: { slack: 'MINE' } },
  },
  {
    label: 'comments: ada never on slack (category comment, organization-wide)',
    request: { userIds: ['ada'], category: 'comment', config: { slack: 'NONE' } },
  },
];

/** The organization's policy: three categories for people to choose from, security locked on. */
export const POLICY: SetPolicyInput['policy'] = {
  categories: {
    comment: { label: 'Comments', description: 'Replies and comments on documents you follow.' },
    mention: { label: 'Mentions', channels: { email: { value: 'ALL' } } },
    security: {
      label: 'Security alerts',
      description: 'Sign-ins and permission changes. Always delivered by email and in the inbox.',
      channels: { email: { value: 'ALL', locked: true }, inbox: { value: 'ALL', locked: true } },
    },
  },
};
export const POLICY_LABEL = 'policy: comment, mention (email ALL), security (email and inbox locked on)';

export interface SeedSummary {
  organizationId: string;
  users: number;
  documents: readonly string[];
  /** Entries written per layer: organization-level, and per document. */
  entries: { organization: number; documents: Record<string, number> };
  layers: string[];
}

/** Writes every layer through the API and says what it wrote. */
export const seedOrganization = async (client: ServiceClient): Promise<SeedSummary> => {
  const organization = new Set<string>();
  const documents: Record<string, Set<string>> = Object.fromEntries(DOCUMENTS.map((id) => [id, new Set<string>()]));
  await client.setPolicy({ organizationId: ORGANIZATION_ID, policy: POLICY });
  for (const { request } of LAYERS) {
    await client.setConfig({ organizationId: ORGANIZATION_ID, ...request });
    for (const userId of request.userIds) {
      if (!request.documentIds) organization.add(userId);
      for (const documentId of request.documentIds ?? []) documents[documentId]?.add(userId);
    }
  }
  return {
    organizationId: ORGANIZATION_ID,
    users: USERS.length,
    documents: DOCUMENTS,
    entries: {
      organization: organization.size,
      documents: Object.fromEntries(Object.entries(documents).map(([id, users]) => [id, users.size])),
    },
    layers: [POLICY_LABEL, ...LAYERS.map((layer) => layer.label)],
  };
};
