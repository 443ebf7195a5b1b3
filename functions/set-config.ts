import { createAuthenticator } from '#shared/auth/create-authenticator.js';
import { documentClient } from '#shared/lambda/aws-clients.js';
import { ENV, requireEnv } from '#shared/lambda/environment.js';
import { httpHandler } from '#shared/lambda/http-handler.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { setConfigRequest } from '#shared/preferences/schemas.js';
import { SET_CONFIG_MESSAGE, setConfig } from '#shared/preferences/service.js';

const store = new DynamoPreferenceStore(documentClient, requireEnv(ENV.configTable));

/** POST /v2/notifications/config/set */
export const handler = httpHandler(
  { schema: setConfigRequest, authenticator: createAuthenticator() },
  async ({ data, credential }) => ({
    message: SET_CONFIG_MESSAGE,
    data: await setConfig({ store }, data, credential.apiKey),
  }),
);
