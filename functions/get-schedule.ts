import { httpRoute } from '#shared/edge/http-route.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { tableName } from '#shared/platform/environment.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { getScheduleRoute } from '#shared/preferences/routes/get-schedule.js';
import { getSchedule } from '#shared/preferences/schedules.js';

const store = new DynamoScheduleStore(documentClient, tableName('config'));

export const handler = httpRoute(getScheduleRoute, ({ data }) => getSchedule({ store }, data));
