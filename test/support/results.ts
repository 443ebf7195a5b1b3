/** One user's result of a write across documents, as the routes answer it, for the tests' expectations. */
export const documentResult = (userId: string, documentIds: string[], message: string) => ({
  success: true,
  userId,
  documentId: documentIds[0],
  documentIds,
  scope: 'document',
  message,
});

type Channels = Record<string, string>;

/** One document's view of config/get for a user with no category settings, for the tests' expectations. */
export const documentView = (
  userId: string,
  documentId: string,
  view: { config: Channels; effective: Channels; source: Channels },
) => ({
  userId,
  documentId,
  scope: 'document',
  config: view.config,
  categories: {},
  effective: view.effective,
  source: view.source,
});
