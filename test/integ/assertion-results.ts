/**
 * The verdicts of an integ-tests-alpha assertions stack, as `cdk deploy --outputs-file` writes
 * them: one `AssertionResults…` output per checked call, `{"status":"success"}` or
 * `{"status":"fail","message":…}`.
 */
export interface AssertionVerdict {
  output: string;
  ok: boolean;
  message?: string;
}

export const assertionVerdicts = (outputs: Record<string, Record<string, string>>): AssertionVerdict[] =>
  Object.values(outputs).flatMap((stackOutputs) =>
    Object.entries(stackOutputs)
      .filter(([name]) => name.startsWith('AssertionResults'))
      .map(([output, value]): AssertionVerdict => {
        try {
          const verdict = JSON.parse(value) as { status?: string; message?: string };
          return verdict.status === 'success'
            ? { output, ok: true }
            : { output, ok: false, message: verdict.message ?? value };
        } catch {
          return { output, ok: false, message: `not a verdict: ${value}` };
        }
      }),
  );
