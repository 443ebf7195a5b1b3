import { formatPath } from '#shared/edge/http-route.js';
import { type ResponseSpec, responsesOf, unknownRouteResponse } from './documented-responses.js';
import { operationForPath } from './operations.js';

export interface OpenApiCheck {
  valid: boolean;
  /** What is wrong, one line per problem (empty when valid). */
  errors: string[];
  /** The component schema the body was checked against, when the status is documented. */
  schema?: string;
}

/** Which documented response a request to `path` answering `httpStatus` must match. */
export const documentedResponse = (path: string, httpStatus: number): ResponseSpec | undefined => {
  const bare = path.split('?')[0] ?? path;
  const operation = operationForPath(bare);
  if (!operation) {
    const unknownRoute = unknownRouteResponse();
    return httpStatus === unknownRoute.httpStatus ? unknownRoute : undefined;
  }
  return responsesOf(operation).find((response) => response.httpStatus === httpStatus);
};

/**
 * Checks a real response against the OpenAPI document. The schemas are the zod schemas the
 * document is generated from, selected through the same operation table, so the two cannot differ.
 * `body` is the parsed JSON, or the raw response text.
 */
export const validateAgainstOpenApi = (path: string, httpStatus: number, body: unknown): OpenApiCheck => {
  const response = documentedResponse(path, httpStatus);
  if (!response) return { valid: false, errors: [`HTTP ${httpStatus} is not documented for ${path}`] };
  let parsedBody = body;
  if (typeof body === 'string') {
    try {
      parsedBody = JSON.parse(body);
    } catch {
      return { valid: false, errors: [`The body is not JSON: ${body.slice(0, 200)}`], schema: response.name };
    }
  }
  const parsed = response.schema.safeParse(parsedBody);
  if (parsed.success) return { valid: true, errors: [], schema: response.name };
  return {
    valid: false,
    errors: parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`),
    schema: response.name,
  };
};

/** Throws with every problem listed, for tests that want one line per call. */
export const assertMatchesOpenApi = (path: string, httpStatus: number, body: unknown): void => {
  const check = validateAgainstOpenApi(path, httpStatus, body);
  if (!check.valid) {
    throw new Error(
      `Response ${httpStatus} of ${path} does not match the OpenAPI document (${check.schema ?? 'undocumented'}):\n` +
        `  ${check.errors.join('\n  ')}\nBody: ${typeof body === 'string' ? body : JSON.stringify(body)}`,
    );
  }
};
