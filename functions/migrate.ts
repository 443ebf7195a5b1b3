// Placeholder so that the stack can bundle every entry; the migration work replaces it.
export const handler = async (): Promise<never> => {
  throw new Error('Not implemented yet');
};
