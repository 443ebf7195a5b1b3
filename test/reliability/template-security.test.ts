import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Json, type Resources, type Synthesized, synthService } from '../infra/synth.js';

// The deployed permissions, read from the synthesized template (one synthesis, no bundling):
// every policy document of every kind of resource, not only the functions' roles.
let s: Synthesized;
let resources: Resources;
beforeAll(() => {
  s = synthService({ stage: 'sec' }, { bundle: false, guard: false });
  resources = s.template.toJSON().Resources as Resources;
}, 120_000);
afterAll(() => s?.cleanup());

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

interface Found {
  resource: string;
  type: string;
  statement: Json;
}

/** Every statement of every policy document in the template (identity and resource policies). */
const statements = (): Found[] => {
  const found: Found[] = [];
  for (const [resource, { Type: type, Properties: p = {} }] of Object.entries(resources)) {
    const documents = [
      p.PolicyDocument,
      p.KeyPolicy,
      ...asArray<Json>(p.Policies).map((policy: Json) => policy.PolicyDocument),
    ].filter(Boolean);
    for (const document of documents) {
      for (const statement of asArray<Json>(document.Statement)) found.push({ resource, type, statement });
    }
  }
  return found;
};

const DATA_SERVICES = /^(dynamodb|sqs|s3|kms|sns|secretsmanager|ssm):/i;
const logicalIdOf = (value: Json): string =>
  value === '*' ? '*' : (value?.['Fn::GetAtt']?.[0] ?? value?.Ref ?? JSON.stringify(value));

describe('permissions in the synthesized template', () => {
  test('the template has policies to check', () => {
    expect(statements().length).toBeGreaterThan(5);
  });

  test('no Allow statement uses a wildcard action, NotAction or NotResource', () => {
    const bad = statements()
      .filter(({ statement }) => statement.Effect === 'Allow')
      .filter(
        ({ statement }) =>
          statement.NotAction !== undefined ||
          statement.NotResource !== undefined ||
          asArray<string>(statement.Action).some((action) => action.includes('*')),
      )
      .map(({ resource, statement }) => `${resource}: ${JSON.stringify(statement.Action ?? statement.NotAction)}`);
    expect(bad).toEqual([]);
  });

  test('data actions (DynamoDB, SQS, KMS, ...) never apply to Resource "*" and never to anyone ("Principal": "*")', () => {
    const bad = statements()
      .filter(({ statement }) => statement.Effect === 'Allow')
      .filter(({ statement }) =>
        asArray<string>(statement.Action).some(
          // ListStreams (granted by a stream event source) lists stream ARNs, reads no data and has
          // no resource-level permissions.
          (action) => DATA_SERVICES.test(action) && action !== 'dynamodb:ListStreams',
        ),
      )
      .filter(
        ({ statement, type }) =>
          (type !== 'AWS::KMS::Key' && asArray(statement.Resource).includes('*')) ||
          statement.Principal === '*' ||
          asArray(statement.Principal?.AWS).includes('*'),
      )
      .map(({ resource, statement }) => `${resource}: ${JSON.stringify(statement)}`);
    expect(bad).toEqual([]);
  });

  test('no function may write or scan the credentials table, or delete any table', () => {
    const credentialsTable = Object.entries(resources).find(
      ([id, r]) => r.Type === 'AWS::DynamoDB::Table' && /credential/i.test(id),
    )?.[0];
    expect(credentialsTable).toBeDefined();
    const onCredentials = new Set<string>();
    const tableAdmin: string[] = [];
    for (const { statement } of statements()) {
      if (statement.Effect !== 'Allow') continue;
      const actions = asArray<string>(statement.Action);
      tableAdmin.push(
        ...actions.filter((a) => /^dynamodb:(DeleteTable|UpdateTable|CreateTable|DeleteBackup)$/.test(a)),
      );
      if (asArray(statement.Resource).some((r) => logicalIdOf(r) === credentialsTable)) {
        for (const action of actions) onCredentials.add(action);
      }
    }
    expect(tableAdmin).toEqual([]);
    // Reading one credential by key is all the functions need (the operators' tool runs with the operator's rights).
    for (const action of onCredentials) {
      expect([
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:DescribeTable',
        'dynamodb:ConditionCheckItem',
      ]).toContain(action);
    }
    expect([...onCredentials]).toContain('dynamodb:GetItem');
  });
});
