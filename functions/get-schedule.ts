import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { getScheduleRoute } from '#shared/preferences/routes/get-schedule.js';
import { getSchedule } from '#shared/preferences/schedules.js';

const store = new DynamoPreferenceStore(documentClient, tableName('config'));

export const handler = httpRoute(getScheduleRoute, ({ data }) => getSchedule({ store }, data));
