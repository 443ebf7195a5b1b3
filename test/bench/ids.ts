/** Identifiers of the bench's users and documents: sortable, and the same in every section. */
export const users = (count: number, prefix = 'user') =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);

export const documents = (count: number, prefix = 'doc') => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

export const ORG = 'bench-org';
