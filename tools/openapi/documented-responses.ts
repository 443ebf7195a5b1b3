import type { z } from 'zod';
import { ERROR_HTTP_STATUS, type ErrorStatus } from '#shared/api/errors.js';
import { errorEnvelope, gatewayError, statusesForHttp, successEnvelope } from './envelope-schemas.js';
import type { Operation } from './operations.js';

/**
 * Every response each operation documents, with the schema it must match: what the OpenAPI
 * document lists and what tests check real answers against. Kept apart from the operations
 * table because it builds classic zod schemas, which the functions' bundles must not carry.
 */

/** The `$default` route: any other path answers this. */
export const UNKNOWN_ROUTE_STATUS: ErrorStatus = 'NOT_FOUND';

// Statuses API Gateway may answer with its own `{message}` body instead of the envelope.
const GATEWAY_HTTP_STATUSES = new Set([429, 500, 503]);

export interface ResponseSpec {
  httpStatus: number;
  /** Component name of the schema. */
  name: string;
  description: string;
  schema: z.ZodType;
  /** For errors: the statuses this HTTP code carries on this route. */
  statuses?: ErrorStatus[];
}

const pascal = (status: string) =>
  status
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

// One schema instance per status set, so every route refers to the same component.
const errorSchemas = new Map<string, { name: string; schema: z.ZodType }>();

/** The error envelope schema for a set of statuses (one HTTP code), plus API Gateway's body where it applies. */
export const errorSchemaFor = (statuses: ErrorStatus[], httpStatus: number) => {
  const gateway = GATEWAY_HTTP_STATUSES.has(httpStatus);
  const key = `${statuses.join(',')}|${gateway}`;
  let entry = errorSchemas.get(key);
  if (!entry) {
    const base = `${statuses.map(pascal).join('Or')}Error`;
    const envelope = errorEnvelope(statuses);
    entry = gateway
      ? { name: `${statuses.map(pascal).join('Or')}OrGatewayError`, schema: envelope.or(gatewayError) }
      : { name: base, schema: envelope };
    errorSchemas.set(key, entry);
  }
  return entry;
};

const successSchemas = new Map<Operation, z.ZodType>();
export const successSchemaFor = (operation: Operation): z.ZodType => {
  let schema = successSchemas.get(operation);
  if (!schema) {
    schema = successEnvelope(operation.result);
    successSchemas.set(operation, schema);
  }
  return schema;
};

/** Every response of an operation: 200 and one per HTTP code of its error statuses. */
export const responsesOf = (operation: Operation): ResponseSpec[] => {
  const codes = [...new Set(operation.errors.map((error) => ERROR_HTTP_STATUS[error.status]))].sort((a, b) => a - b);
  const listed = operation.errors.map((error) => error.status);
  return [
    {
      httpStatus: 200,
      name: `${operation.name}Response`,
      description: `Success; \`result.message\` is "${operation.message}".`,
      schema: successSchemaFor(operation),
    },
    ...codes.map((httpStatus) => {
      const statuses = statusesForHttp(httpStatus, listed);
      const { name, schema } = errorSchemaFor(statuses, httpStatus);
      const description = operation.errors
        .filter((error) => statuses.includes(error.status))
        .map((error) => `${error.status}: ${error.when}`)
        .join('\n');
      return { httpStatus, name, description, schema, statuses };
    }),
  ];
};

/** What the `$default` route answers for any other path or method-less route. */
export const unknownRouteResponse = (): ResponseSpec => {
  const statuses = [UNKNOWN_ROUTE_STATUS];
  const { name, schema } = errorSchemaFor(statuses, ERROR_HTTP_STATUS[UNKNOWN_ROUTE_STATUS]);
  return {
    httpStatus: ERROR_HTTP_STATUS[UNKNOWN_ROUTE_STATUS],
    name,
    description: 'Any path that is not one of the operations (the `$default` route), whatever the method.',
    schema,
    statuses,
  };
};
