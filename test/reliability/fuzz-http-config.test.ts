import { defineHttpFuzz } from './http-fuzz.js';

// Bad input over HTTP: the config routes and paths that are no route.
defineHttpFuzz(
  ['setConfig', 'getConfig', 'setSchedule', 'getSchedule', 'resolveConfig', 'resetConfig', 'setPolicy', 'getPolicy'],
  { unknownPaths: true },
);
