import { runMigrationsCommand } from './command.js';

// `npm run migrations -- …`; see command.ts (or --help) for what it does.
process.exitCode = await runMigrationsCommand(process.argv.slice(2), {
  stdout: (text) => console.log(text),
  stderr: (text) => console.error(text),
});
