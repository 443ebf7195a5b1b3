export * from './client.js';
export * from './errors.js';
