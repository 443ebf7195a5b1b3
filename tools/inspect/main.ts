import { runInspectCommand } from './command.js';

// `npm run inspect -- …`; see command.ts (or --help) for what it shows.
process.exitCode = await runInspectCommand(process.argv.slice(2), {
  stdout: (text) => console.log(text),
  stderr: (text) => console.error(text),
});
