import { describe, expect, test } from '@jest/globals';
import { assertMatchesOpenApi, validateAgainstOpenApi } from '#tools/openapi/validate.js';

const SET = '/v2/notifications/config/set';
const GET = '/v2/notifications/config/get';

const setEntry = { success: true, userId: 'alice', documentId: 'doc-1', scope: 'document', message: 'Config set.' };
const setOk = { result: { status: 'success', message: 'User config set successfully.', data: { alice: setEntry } } };
const view = {
  userId: 'alice',
  documentId: null,
  scope: 'organization',
  config: {},
  categories: {},
  effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
  source: { inbox: 'default', email: 'default', slack: 'default' },
};
const getOk = { result: { status: 'success', message: 'User config retrieved successfully.', data: [view] } };
const error = (status: string, message = 'x', details?: unknown) => ({
  error: { message, status, ...(details === undefined ? {} : { details }) },
});

describe('validateAgainstOpenApi', () => {
  test.each([
    ['set 200', SET, 200, setOk],
    [
      'set 200, several documents',
      SET,
      200,
      { result: { ...setOk.result, data: { alice: { ...setEntry, documentIds: ['doc-1', 'doc-2'] } } } },
    ],
    ['get 200', GET, 200, getOk],
    [
      '400 with issue details',
      SET,
      400,
      error('INVALID_ARGUMENT', 'data.userIds: …', [{ path: 'data.userIds', message: '…' }]),
    ],
    ['401', GET, 401, error('UNAUTHENTICATED')],
    ['403', GET, 403, error('PERMISSION_DENIED')],
    ['500 with a request id', SET, 500, error('INTERNAL', 'Internal error.', { requestId: 'r-1' })],
    ["500 from API Gateway's own body", SET, 500, { message: 'Internal Server Error' }],
    ['429 from API Gateway throttling', GET, 429, { message: 'Too Many Requests' }],
    ['503', SET, 503, error('UNAVAILABLE', 'retry', { alice: { ...setEntry, success: false } })],
    ['an unknown path answering 404', '/v2/nope', 404, error('NOT_FOUND', 'No route for POST /v2/nope.')],
    ['a query string on the path', `${GET}?x=1`, 200, getOk],
    ['the raw JSON text', SET, 200, JSON.stringify(setOk)],
  ])('accepts %s', (_name, path, code, body) => {
    expect(validateAgainstOpenApi(path, code, body)).toMatchObject({ valid: true, errors: [] });
  });

  test.each([
    [
      'a result entry without scope',
      SET,
      200,
      { result: { ...setOk.result, data: { alice: { ...setEntry, scope: undefined } } } },
      'data.alice.scope',
    ],
    [
      'an undocumented field',
      GET,
      200,
      { result: { ...getOk.result, data: [{ ...view, updatedAt: 'now' }] } },
      'updatedAt',
    ],
    [
      'a channel value outside the enum',
      GET,
      200,
      { result: { ...getOk.result, data: [{ ...view, effective: { ...view.effective, inbox: 'SOME' } }] } },
      'effective.inbox',
    ],
    ['a success status other than success', SET, 200, { result: { ...setOk.result, status: 'ok' } }, 'result.status'],
    ['get data that is not a list', GET, 200, { result: { ...getOk.result, data: view } }, 'result.data'],
    ['a status that belongs to another HTTP code', SET, 400, error('UNAUTHENTICATED'), 'error.status'],
    ['an error next to a result', SET, 400, { ...error('INVALID_ARGUMENT'), result: setOk.result }, 'result'],
    ['an error without message', SET, 401, { error: { status: 'UNAUTHENTICATED' } }, 'error.message'],
    ["API Gateway's body where the service must answer", SET, 400, { message: 'Bad Request' }, 'error'],
    ['a 409 on a route that never conflicts', SET, 409, error('ABORTED'), 'not documented'],
    ['an unknown path answering anything but 404', '/v2/nope', 400, error('INVALID_ARGUMENT'), 'not documented'],
    ['text that is not JSON', SET, 200, '<html>', 'not JSON'],
  ])('rejects %s', (_name, path, code, body, where) => {
    const check = validateAgainstOpenApi(path, code, body);
    expect(check.valid).toBe(false);
    expect(check.errors.join('\n')).toContain(where);
  });

  test('assertMatchesOpenApi names the route, the schema and every problem', () => {
    expect(() => assertMatchesOpenApi(SET, 200, setOk)).not.toThrow();
    expect(() => assertMatchesOpenApi(SET, 400, error('NOT_FOUND'))).toThrow(
      /Response 400 of \/v2\/notifications\/config\/set does not match the OpenAPI document \(InvalidArgumentOrFailedPreconditionError\):\n {2}error\.status/,
    );
  });
});
