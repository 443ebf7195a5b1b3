import { defineHttpFuzz } from './http-fuzz.js';

// Bad input over HTTP: the history, migration and erasure routes.
defineHttpFuzz(['getConfigHistory', 'migrateDocument', 'getMigrationStatus', 'eraseUser', 'getErasureStatus'], {
  unknownPaths: false,
});
