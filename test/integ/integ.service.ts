import { buildIntegApp } from './service-integ.js';

// The app integ-runner synthesizes and deploys (`npm run integ`); see service-integ.ts.
buildIntegApp().app.synth();
