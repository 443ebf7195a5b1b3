import type { Policy } from './model.js';

/*
 * The policy item's categories keep the order they were set in: DynamoDB keeps a map's keys in no
 * order of its own (a policy set as c0, c1, ... c99 read back c31, c30, c33, ...), and the
 * preference page lists the categories as the policy does. So the item also holds their ids, in
 * order, as a list.
 */

/** The item's attribute listing the categories in order. */
export const CATEGORY_ORDER = 'categoryOrder';

/** What the item's CATEGORY_ORDER holds for `policy`. */
export const categoryOrderOf = (policy: Policy): string[] => Object.keys(policy.categories ?? {});

/** The item's policy, its categories in the order they were set (an item written before the list was kept: by id). */
export const policyOfItem = (item: Readonly<Record<string, unknown>> | undefined): Policy => {
  const policy = (item?.policy ?? {}) as Policy;
  const categories = policy.categories;
  if (!categories) return policy;
  const order = item?.[CATEGORY_ORDER];
  const listed = new Set(
    (Array.isArray(order) ? order : []).filter(
      (id): id is string => typeof id === 'string' && Object.hasOwn(categories, id),
    ),
  );
  const rest = Object.keys(categories)
    .filter((id) => !listed.has(id))
    .sort();
  return {
    ...policy,
    categories: Object.fromEntries(
      [...listed, ...rest].map((id) => [id, categories[id] as NonNullable<(typeof categories)[string]>]),
    ),
  };
};
