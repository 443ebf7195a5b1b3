import type { Json, Resources, Synthesized } from './synth.js';
import { resourceById } from './synth.js';

/**
 * A function's IAM statements as the synthesized template has them, with each resource named by
 * the logical id of what it points at ('ConfigTable1A2B...', or '<table id>/index/<name>' for an
 * index ARN built with Fn::Join), so that a call can be checked against them without AWS.
 */
export interface Statement {
  actions: string[];
  targets: string[];
}

export type FunctionKey = keyof Synthesized['stack']['functions'];

const targetOf = (resource: Json): string => {
  const joined = resource?.['Fn::Join'];
  if (joined?.[0] === '') {
    return (joined[1] as Json[]).map((part) => (typeof part === 'string' ? part : targetOf(part))).join('');
  }
  return String(resource?.['Fn::GetAtt']?.[0] ?? resource?.Ref ?? resource);
};

export const statementsOf = (s: Synthesized, resources: Resources, key: FunctionKey): Statement[] => {
  const fn = resourceById(resources, s.logicalId(s.stack.functions[key].function)).Properties;
  const roleId: string = fn.Role['Fn::GetAtt'][0];
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: Json) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[])
    .filter((statement) => statement.Effect === 'Allow')
    .map((statement) => ({
      actions: [statement.Action].flat() as string[],
      targets: [statement.Resource].flat().map(targetOf),
    }));
};

const matches = (pattern: string, value: string) =>
  pattern === value || (pattern.endsWith('*') && value.startsWith(pattern.slice(0, -1)));

/** Whether some statement allows `action` on `target` (a logical id, or '<table id>/index/<name>'). */
export const allows = (statements: Statement[], action: string, target: string): boolean =>
  statements.some(
    (statement) =>
      statement.actions.some((granted) => matches(granted, action)) &&
      statement.targets.some((granted) => matches(granted, target)),
  );
