import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Credential } from '#shared/auth/credential.js';

/** What the API's middlewares hand on to the route: the credential, then the checked `data`. */
export interface ApiContext extends Context {
  credential?: Credential;
  data?: unknown;
  /** An answer already given to this very request (an Idempotency-Key's): the route is not called again. */
  answered?: CallableResult;
}

/** What a route's domain call returns; the envelope middleware wraps it in `{result}`. */
export interface CallableResult {
  message: string;
  data: unknown;
}

export type HttpAnswer = APIGatewayProxyStructuredResultV2;

export type ApiRequest = Request<APIGatewayProxyEventV2, HttpAnswer | CallableResult, Error, ApiContext>;

export type ApiMiddleware = MiddlewareObj<APIGatewayProxyEventV2, HttpAnswer | CallableResult, Error, ApiContext>;
