import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';

// Lambda's active tracing records each function's own segment; the trace goes on through SQS and
// EventBridge because the SDK's clients send the invocation's trace header with every call (its
// recursion-detection middleware), which SQS keeps as the message's AWSTraceHeader and EventBridge
// passes to its targets. The service's clients must keep that: nothing of ours may drop it.

const TRACE = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

/** One endpoint standing in for SQS and EventBridge: it answers each call as they do and keeps its headers. */
const seen: { target: string; headers: IncomingHttpHeaders }[] = [];
let server: Server;
let endpoint: string;
/** What Lambda sets in a traced function's environment (the endpoints: the stand-in's address). */
const lambdaEnv = (endpoint: string): Record<string, string> => ({
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_LAMBDA_FUNCTION_NAME: 'trace-context-test',
  _X_AMZN_TRACE_ID: TRACE,
  AWS_ENDPOINT_URL_SQS: endpoint,
  AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint,
});
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { MessageBody?: string };
    const target = String(request.headers['x-amz-target'] ?? '');
    seen.push({ target, headers: request.headers });
    const answer = target.endsWith('SendMessage')
      ? {
          MessageId: 'm-1',
          MD5OfMessageBody: createHash('md5')
            .update(body.MessageBody ?? '')
            .digest('hex'),
        }
      : { FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] };
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const [name, value] of Object.entries(lambdaEnv(endpoint))) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test("an SQS send and an EventBridge put from a function carry the invocation's trace header", async () => {
  const { sqsClient } = await import('#shared/platform/sqs-client.js');
  const { eventBridgeClient } = await import('#shared/platform/events-client.js');
  await sqsClient.send(new SendMessageCommand({ QueueUrl: `${endpoint}/000000000000/q`, MessageBody: '{}' }));
  await eventBridgeClient.send(
    new PutEventsCommand({ Entries: [{ Source: 'test', DetailType: 'test', Detail: '{}', EventBusName: 'bus' }] }),
  );
  expect(seen.map(({ target, headers }) => ({ target, trace: headers['x-amzn-trace-id'] }))).toEqual([
    { target: 'AmazonSQS.SendMessage', trace: TRACE },
    { target: 'AWSEvents.PutEvents', trace: TRACE },
  ]);
  sqsClient.destroy();
  eventBridgeClient.destroy();
});
