import { ApiError } from '#shared/api/errors.js';
import type { CategoryPolicy, Policy, Rules } from './model.js';
import type { GetPolicyRequest, GetPolicyResult } from './routes/get-policy.js';
import type { SetPolicyRequest, SetPolicyResult } from './routes/set-policy.js';
import type { PolicyInput } from './schema.js';
import { type PolicyStore, VersionConflict } from './store.js';

/** `locked: false` is the same as no `locked`: the policy is stored without it, and answered so. */
const normalRules = (rules: PolicyInput['channels']): Rules | undefined => {
  if (!rules) return undefined;
  return Object.fromEntries(
    Object.entries(rules).flatMap(([channel, rule]) =>
      rule ? [[channel, rule.locked ? { value: rule.value, locked: true } : { value: rule.value }]] : [],
    ),
  ) as Rules;
};

export const normalPolicy = (input: PolicyInput): Policy => {
  const channels = normalRules(input.channels);
  const categories = input.categories
    ? Object.fromEntries(
        Object.entries(input.categories).map(([id, category]): [string, CategoryPolicy] => {
          const own = normalRules(category.channels);
          return [
            id,
            {
              label: category.label,
              ...(category.description === undefined ? {} : { description: category.description }),
              ...(category.labels === undefined ? {} : { labels: category.labels }),
              ...(category.descriptions === undefined ? {} : { descriptions: category.descriptions }),
              ...(own ? { channels: own } : {}),
            },
          ];
        }),
      )
    : undefined;
  return { ...(channels ? { channels } : {}), ...(categories ? { categories } : {}) };
};

/** docs/api.md, policy/set: replaces the whole policy, one version later; a stale expectedVersion is ABORTED. */
export const setPolicy = async (
  { store, now = () => new Date() }: { store: PolicyStore; now?: () => Date },
  { organizationId, policy, expectedVersion }: SetPolicyRequest,
  apiKey: string,
): Promise<SetPolicyResult> => {
  try {
    return await store.put(
      organizationId,
      normalPolicy(policy),
      { updatedAt: now().toISOString(), updatedBy: apiKey },
      expectedVersion,
    );
  } catch (error) {
    if (!(error instanceof VersionConflict)) throw error;
    throw new ApiError(
      'ABORTED',
      `The policy is at version ${error.current}, not ${expectedVersion}: read it again, and set it with expectedVersion ${error.current}.`,
      { version: error.current },
    );
  }
};

/** docs/api.md, policy/get: the policy as stored (never cached); none is `{policy: {}, version: 0}`. */
export const getPolicy = async (
  { store }: { store: PolicyStore },
  { organizationId }: GetPolicyRequest,
): Promise<GetPolicyResult> => {
  const { policy, version, updatedAt, updatedBy } = await store.get(organizationId);
  return { policy, version, ...(updatedAt ? { updatedAt } : {}), ...(updatedBy ? { updatedBy } : {}) };
};
