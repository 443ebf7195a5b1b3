import { createServiceApp } from '#infra/service-app.js';

// Entry point of `cdk synth` / `cdk deploy` (see cdk.json): settings come from -c flags.
createServiceApp().app.synth();
