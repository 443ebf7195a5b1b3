import { DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { setScheduleRoute } from '#shared/preferences/routes/set-schedule.js';
import { setSchedule } from '#shared/preferences/schedules.js';

const store = new DynamoScheduleStore(documentClient, tableName('config'));
const texts = new DynamoConsentTextStore(documentClient, tableName('config'));

export const handler = httpRoute(setScheduleRoute, ({ data, credential, signal }) =>
  setSchedule({ store, texts }, data, credential.apiKey, { signal }),
);
