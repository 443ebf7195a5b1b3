import { runSmokeCommand } from './command.js';

// `npm run smoke -- …`; see command.ts (or --help) for what it does.
process.exitCode = await runSmokeCommand(process.argv.slice(2), {
  stdout: (text) => console.log(text),
  stderr: (text) => console.error(text),
});
