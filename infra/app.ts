import { createServiceApp } from '#infra/service-app.js';
import { ServiceConfigError } from '#infra/stage-settings.js';

// Entry point of `cdk synth` / `cdk deploy` (see cdk.json): settings come from cdk.json and -c flags.
try {
  createServiceApp().app.synth();
} catch (error) {
  // A wrong setting is the operator's to fix: one line saying which, not a stack trace.
  if (!(error instanceof ServiceConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
