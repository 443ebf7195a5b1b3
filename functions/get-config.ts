import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { documentClient } from '#shared/lambda/aws-clients.js';
import { ENV, requireEnv } from '#shared/lambda/environment.js';
import { httpHandler } from '#shared/lambda/http-handler.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { defaultsFromEnv } from '#shared/preferences/model.js';
import { getConfigRequest } from '#shared/preferences/schemas.js';
import { GET_CONFIG_MESSAGE, getConfig } from '#shared/preferences/service.js';

const store = new DynamoPreferenceStore(documentClient, requireEnv(ENV.configTable));
const defaults = defaultsFromEnv();

/** POST /v2/notifications/config/get */
export const handler = httpHandler(
  { schema: getConfigRequest, authenticator: createAuthenticator() },
  async ({ data }) => ({
    message: GET_CONFIG_MESSAGE,
    data: await getConfig({ store, defaults }, data),
  }),
);
