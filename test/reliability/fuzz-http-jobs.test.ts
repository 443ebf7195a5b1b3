import { HTTP_FUZZ_GROUPS } from '../support/fuzz.js';
import { defineHttpFuzz } from './http-fuzz.js';

// Bad input over HTTP: the history, migration and erasure routes, and the links' (links/create, links/revoke).
defineHttpFuzz(HTTP_FUZZ_GROUPS.jobs, { unknownPaths: false });
