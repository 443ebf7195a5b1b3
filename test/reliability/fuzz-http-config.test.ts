import { defineHttpFuzz } from './http-fuzz.js';

// Bad input over HTTP: the config routes and paths that are no route.
defineHttpFuzz(['set', 'get'], { unknownPaths: true });
