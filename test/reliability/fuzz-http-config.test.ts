import { defineHttpFuzz } from './http-fuzz.js';

// Bad input over HTTP: the config routes and paths that are no route.
defineHttpFuzz(['setConfig', 'getConfig', 'resolveConfig', 'resetConfig'], { unknownPaths: true });
