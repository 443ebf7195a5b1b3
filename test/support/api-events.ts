import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiContext } from '#shared/edge/http-route.js';

export interface EventOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A value to JSON-encode, or a raw string body. */
  body?: unknown;
  rawBody?: string;
}

/** An API Gateway HTTP API (payload 2.0) event, as the Lambda integration delivers it. */
export const apiEvent = (path: string, { method = 'POST', headers = {}, body, rawBody }: EventOptions = {}) =>
  ({
    version: '2.0',
    routeKey: `ANY ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...headers },
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: randomUUID(),
      routeKey: `ANY ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    isBase64Encoded: false,
  }) as APIGatewayProxyEventV2;

/** A Lambda context without getRemainingTimeInMillis, so Middy sets no early timeout. */
export const lambdaContext = (): ApiContext =>
  ({
    awsRequestId: randomUUID(),
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:test',
    memoryLimitInMB: '256',
    logGroupName: '/aws/lambda/test',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: true,
  }) as unknown as ApiContext;

export interface ParsedResponse {
  statusCode: number;
  headers: Record<string, unknown>;
  body: Record<string, unknown> & {
    result?: { status: string; message: string; data: unknown };
    error?: { status: string; message: string; details?: unknown };
  };
}

export const parseResponse = (response: APIGatewayProxyStructuredResultV2): ParsedResponse => ({
  statusCode: response.statusCode ?? 0,
  headers: (response.headers ?? {}) as Record<string, unknown>,
  body: JSON.parse(response.body ?? 'null'),
});
