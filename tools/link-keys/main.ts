import { runLinkKeysCommand } from './command.js';

// `npm run link-keys -- …`; see command.ts (or --help) for what it does.
process.exitCode = await runLinkKeysCommand(process.argv.slice(2), {
  stdout: (text) => console.log(text),
  stderr: (text) => console.error(text),
});
