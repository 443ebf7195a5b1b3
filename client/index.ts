export * from './client.js';
export * from './errors.js';
export * from './operations.js';
export type * from './types.js';
