import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, test } from '@jest/globals';
import { assertPortFree, PortInUseError, SamePortError, twinPorts } from '#local/ports.js';

describe('the twin ports follow the API port', () => {
  test('API 3000 gives DynamoDB 3001 and SQS 3002, the same at every start', () => {
    expect(twinPorts(3000)).toEqual({ api: 3000, dynamodb: 3001, sqs: 3002 });
    expect(twinPorts(8080)).toEqual({ api: 8080, dynamodb: 8081, sqs: 8082 });
  });

  test('ports given for DynamoDB or SQS win', () => {
    expect(twinPorts(3000, { dynamodb: 8000 })).toEqual({ api: 3000, dynamodb: 8000, sqs: 3002 });
    expect(twinPorts(3000, { sqs: 9324 })).toEqual({ api: 3000, dynamodb: 3001, sqs: 9324 });
  });

  test('API 0 (a free port, as the tests ask) leaves all three free', () => {
    expect(twinPorts(0)).toEqual({ api: 0, dynamodb: 0, sqs: 0 });
  });

  test('an API port too high to follow is refused, naming the port', () => {
    expect(() => twinPorts(65_534)).toThrow(/port 65536 .*65534/);
    expect(twinPorts(65_534, { dynamodb: 3001, sqs: 3002 })).toEqual({ api: 65_534, dynamodb: 3001, sqs: 3002 });
  });

  test('two services given one port are refused, naming both (one would take it, the other fail as if it were held)', () => {
    expect(() => twinPorts(4120, { dynamodb: 4120 })).toThrow(
      new SamePortError('the API and the embedded DynamoDB are both given port 4120'),
    );
    expect(() => twinPorts(4120, { sqs: 4121 })).toThrow(
      new SamePortError('the embedded DynamoDB and the SQS twin are both given port 4121'),
    );
    expect(twinPorts(0, { dynamodb: 0, sqs: 0 })).toEqual({ api: 0, dynamodb: 0, sqs: 0 });
  });
});

describe('a taken port', () => {
  let holder: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve())));

  test('is reported with the service and port that need it', async () => {
    const server = createServer();
    holder = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const refused = assertPortFree('sqs', '127.0.0.1', port);
    await expect(refused).rejects.toBeInstanceOf(PortInUseError);
    await expect(refused).rejects.toMatchObject({
      service: 'sqs',
      port,
      message: expect.stringContaining(String(port)),
    });
    // Every interface, as DynamoDB Local listens: one taken on 127.0.0.1 counts.
    await expect(assertPortFree('dynamodb', undefined, port)).rejects.toMatchObject({ service: 'dynamodb', port });
  });

  test('port 0 is always free', async () => {
    await expect(assertPortFree('api', '127.0.0.1', 0)).resolves.toBeUndefined();
  });
});
