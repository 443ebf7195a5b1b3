import { HTTP_FUZZ_GROUPS } from '../support/fuzz.js';
import { defineHttpFuzz } from './http-fuzz.js';

// Bad input over HTTP: the config routes and paths that are no route.
defineHttpFuzz(HTTP_FUZZ_GROUPS.config, { unknownPaths: true });
