import { runCredentialsCommand } from './command.js';

// `npm run credentials -- …`; see credentials-command.ts (or --help) for what it does.
process.exitCode = await runCredentialsCommand(process.argv.slice(2), {
  stdout: (text) => console.log(text),
  stderr: (text) => console.error(text),
});
