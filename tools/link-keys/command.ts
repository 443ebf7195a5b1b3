import { setTimeout as sleep } from 'node:timers/promises';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readRunningServer, resolveDataDir } from '#local/data-dir.js';
import { keyFileOf, readKeyFile, writeKeyFile } from '#local/secrets/key-file.js';
import { LOCAL_LINK_KEYS_SECRET } from '#local/secrets/local-secrets-manager.js';
import {
  KEY_ID_PATTERN,
  type KeyringDocument,
  KeyringError,
  newKeyMaterial,
  parseKeyringDocument,
  serializeKeyringDocument,
} from '#shared/links/keyring.js';
import { DAY_SECONDS, MAX_LINK_SECONDS } from '#shared/links/model.js';
import { DEFAULT_LINK_KEYS_CACHE_SECONDS } from '#shared/platform/environment.js';
import { twinCredential } from '../cli/local-store.js';
import {
  type CliIo,
  CommandError,
  describeError,
  exitOnError,
  parseCommandLine,
  table,
  UsageError,
} from '../cli/output.js';

/**
 * `npm run link-keys -- list|add|use|retire|rotate`: the operators' tool for the keys of the links
 * in emails (docs/operations.md, Link keys), in the deployed secret (--secret-id) or the local
 * twin's (the running server's stand-in, or the data directory's key file). It never prints a key.
 */
export const USAGE = `Usage: npm run link-keys -- <command> [options]

Commands:
  list            the keys: which one makes new links, and when each replaced one may be retired
  add [--id ID]   add a new key, not used yet (every function learns it within its cache time)
  use ID          make a key the one that makes new links; the one it replaces keeps opening the
                  links it made, and may be retired once they have all expired (365 days)
  retire ID       remove a key: every link it made stops working (refused for the current key, and
                  before its retire-after time unless --force)
  rotate          add, wait for the functions' cache time (--wait-seconds, default ${DEFAULT_LINK_KEYS_CACHE_SECONDS + 5}), use

Options:
  --id ID             the new key's id (add, rotate): a-z, 0-9 and -, up to 32; default k<date>
  --force             retire a key before its retire-after time (a key that leaked)
  --wait-seconds N    how long rotate waits between add and use

Where (default: the local twin's keys):
  --secret-id ID [--region REGION]  a deployed secret (stack output LinkKeysSecretArn); AWS
                                    credentials and the region come from the default chain
  --endpoint URL                    any Secrets Manager endpoint (secret: --secret-id, default the twin's)
  --data-dir DIR                    the local data directory (DATA_DIR, default .data/); while
                                    \`npm start\` runs on it, its Secrets Manager stand-in is used

Other:
  --json        machine-readable output
  -h, --help    this text

Exit codes: 0 done, 1 failed (e.g. an unknown key, AWS error), 2 invalid command line.`;

const OPTIONS = {
  id: { type: 'string' },
  force: { type: 'boolean' },
  'wait-seconds': { type: 'string' },
  'secret-id': { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseCommandLine<typeof OPTIONS>>['values'];

/** Where the keys are: read and written as a whole document. */
interface KeyStore {
  description: string;
  read(): Promise<KeyringDocument>;
  write(document: KeyringDocument): Promise<void>;
  close(): void;
}

const secretStore = (client: SecretsManagerClient, secretId: string, description: string): KeyStore => ({
  description,
  read: async () => {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return parseKeyringDocument(SecretString ?? '');
  },
  write: async (document) => {
    await client.send(
      new PutSecretValueCommand({ SecretId: secretId, SecretString: serializeKeyringDocument(document) }),
    );
  },
  close: () => client.destroy(),
});

const fileStore = (file: string): KeyStore => ({
  description: `the key file ${file}`,
  read: async () => {
    const content = await readKeyFile(file);
    if (content === undefined)
      throw new CommandError(`no link keys in ${file}: start the local server once (npm start)`);
    return parseKeyringDocument(content);
  },
  write: (document) => writeKeyFile(file, serializeKeyringDocument(document)),
  close: () => {},
});

const openStore = async (values: Values, env: NodeJS.ProcessEnv): Promise<KeyStore> => {
  if (values.region !== undefined && values['secret-id'] === undefined) {
    throw new UsageError('--region needs --secret-id (the stack output LinkKeysSecretArn)');
  }
  if (values.endpoint !== undefined) {
    const client = new SecretsManagerClient({
      endpoint: values.endpoint,
      region: 'local',
      credentials: await twinCredential(resolveDataDir(env), env),
    });
    const secretId = values['secret-id'] ?? LOCAL_LINK_KEYS_SECRET;
    return secretStore(client, secretId, `secret ${secretId} at ${values.endpoint}`);
  }
  if (values['secret-id'] !== undefined) {
    const wanted = values.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    const client = new SecretsManagerClient(wanted ? { region: wanted } : {});
    const region = await client.config.region().catch(() => undefined);
    if (!region) {
      client.destroy();
      throw new UsageError('--secret-id needs a region: --region REGION, AWS_REGION, or a region in your AWS profile');
    }
    return secretStore(client, values['secret-id'], `secret ${values['secret-id']} in ${region}`);
  }
  const dataDir = resolveDataDir(values['data-dir'] ? { DATA_DIR: values['data-dir'] } : env);
  const running = await readRunningServer(dataDir);
  if (running?.secretsEndpoint) {
    const client = new SecretsManagerClient({
      endpoint: running.secretsEndpoint,
      region: 'local',
      credentials: await twinCredential(dataDir, {}),
    });
    return secretStore(
      client,
      LOCAL_LINK_KEYS_SECRET,
      `the running local server's keys (${running.apiUrl}, ${dataDir})`,
    );
  }
  return fileStore(keyFileOf(dataDir));
};

/** A new key's id: k<yyyymmdd>, with -2, -3, ... when taken. */
const newKeyId = (document: KeyringDocument, now: Date): string => {
  const base = `k${now.toISOString().slice(0, 10).replaceAll('-', '')}`;
  let id = base;
  for (let n = 2; id in document.keys; n++) id = `${base}-${n}`;
  return id;
};

const checkedId = (id: string | undefined, what: string): string => {
  if (id === undefined) throw new UsageError(`${what} needs a key id`);
  if (!KEY_ID_PATTERN.test(id)) throw new UsageError(`invalid key id ${JSON.stringify(id)}: a-z, 0-9 and -, up to 32`);
  return id;
};

const add = (document: KeyringDocument, id: string): KeyringDocument => {
  if (id in document.keys) throw new CommandError(`a key ${id} exists already`);
  return { ...document, keys: { ...document.keys, [id]: newKeyMaterial() } };
};

/** The replaced key may go once every link it made has expired (plus a day for clocks). */
const retireAfter = (now: Date) => new Date(now.getTime() + (MAX_LINK_SECONDS + DAY_SECONDS) * 1000).toISOString();

const use = (document: KeyringDocument, id: string, now: Date): KeyringDocument => {
  if (!(id in document.keys)) throw new CommandError(`no key ${id}`);
  if (document.current === id) return document;
  const { [id]: _, ...others } = document.retireAfter;
  return { ...document, current: id, retireAfter: { ...others, [document.current]: retireAfter(now) } };
};

const retire = (document: KeyringDocument, id: string, now: Date, force: boolean): KeyringDocument => {
  if (!(id in document.keys)) throw new CommandError(`no key ${id}`);
  if (document.current === id) throw new CommandError(`${id} makes the new links: use another key first`);
  const after = document.retireAfter[id];
  if (after && Date.parse(after) > now.getTime() && !force) {
    throw new CommandError(
      `links made with ${id} may work until ${after}; retiring it now breaks them (--force to do so anyway)`,
    );
  }
  const { [id]: _key, ...keys } = document.keys;
  const { [id]: _after, ...retireAfters } = document.retireAfter;
  return { ...document, keys, retireAfter: retireAfters };
};

const listing = (document: KeyringDocument) =>
  Object.keys(document.keys)
    .sort()
    .map((id) => ({
      id,
      current: id === document.current,
      ...(document.retireAfter[id] ? { retireAfter: document.retireAfter[id] } : {}),
    }));

export const runLinkKeysCommand = async (argv: string[], io: CliIo): Promise<number> => {
  const env = io.env ?? process.env;
  const now = io.now ?? (() => new Date());
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseCommandLine(argv, OPTIONS);
  } catch (error) {
    return exitOnError('link-keys', io, error, String);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const [command, argument, ...extra] = positionals;
  let store: KeyStore | undefined;
  try {
    if (!command || !['list', 'add', 'use', 'retire', 'rotate'].includes(command)) {
      throw new UsageError(command ? `unknown command ${command}` : 'a command is needed');
    }
    if (extra.length > 0 || (argument !== undefined && !['use', 'retire'].includes(command))) {
      throw new UsageError(`unexpected argument ${extra[0] ?? argument}`);
    }
    const waitSeconds =
      values['wait-seconds'] === undefined ? DEFAULT_LINK_KEYS_CACHE_SECONDS + 5 : Number(values['wait-seconds']);
    if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > 3600) {
      throw new UsageError('--wait-seconds must be a whole number from 0 to 3600');
    }
    store = await openStore(values, env);
    const document = await store.read();
    const say = (text: string, json: unknown) => io.stdout(values.json ? JSON.stringify(json) : text);
    switch (command) {
      case 'list': {
        const keys = listing(document);
        if (values.json) io.stdout(JSON.stringify({ keys }));
        else
          io.stdout(
            table([
              ['KEY', 'MAKES NEW LINKS', 'RETIRE AFTER'],
              ...keys.map((key) => [key.id, key.current ? 'yes' : 'no', key.retireAfter ?? '']),
            ]),
          );
        return 0;
      }
      case 'add': {
        const id = values.id === undefined ? newKeyId(document, now()) : checkedId(values.id, 'add');
        await store.write(add(document, id));
        say(
          `Added key ${id} to ${store.description}. Make it current once every function knows it (after ${DEFAULT_LINK_KEYS_CACHE_SECONDS} s): npm run link-keys -- use ${id}`,
          { added: id },
        );
        return 0;
      }
      case 'use': {
        const id = checkedId(argument, 'use');
        const next = use(document, id, now());
        await store.write(next);
        const previous = document.current === id ? undefined : document.current;
        say(
          previous
            ? `Key ${id} now makes new links. ${previous} still opens the links it made; retire it after ${next.retireAfter[previous]}.`
            : `Key ${id} already makes new links.`,
          { current: id, ...(previous ? { replaced: previous, retireAfter: next.retireAfter[previous] } : {}) },
        );
        return 0;
      }
      case 'retire': {
        const id = checkedId(argument, 'retire');
        await store.write(retire(document, id, now(), values.force ?? false));
        say(`Retired key ${id}: the links it made no longer work.`, { retired: id });
        return 0;
      }
      default: {
        const id = values.id === undefined ? newKeyId(document, now()) : checkedId(values.id, 'rotate');
        await store.write(add(document, id));
        if (!values.json) io.stdout(`Added key ${id}; waiting ${waitSeconds} s for every function to know it…`);
        await sleep(waitSeconds * 1000);
        // Read again: someone may have changed the keys meanwhile.
        const next = use(await store.read(), id, now());
        await store.write(next);
        say(`Key ${id} now makes new links. Retire ${document.current} after ${next.retireAfter[document.current]}.`, {
          current: id,
          replaced: document.current,
          retireAfter: next.retireAfter[document.current],
        });
        return 0;
      }
    }
  } catch (error) {
    return exitOnError('link-keys', io, error, (e) =>
      e instanceof KeyringError ? e.message : describeError(e, store?.description ?? 'the keys', 'the secret'),
    );
  } finally {
    store?.close();
  }
};
