import { defineHttpFuzz } from './http-fuzz.js';

// Bad input over HTTP: the migrate and migration status routes.
defineHttpFuzz(['migrate', 'status'], { unknownPaths: false });
