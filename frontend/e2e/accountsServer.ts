/**
 * A second server for the accounts tests: `rabbithole serve` with server.auth = accounts over a data folder
 * of its own (no model needed: the tests sign in and list collections), its people added with the CLI as an
 * administrator would (`rabbithole users add NAME --password-stdin`), each with a personal token.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { cleanEnv, freePort, repoRoot, start, stop, waitUntil } from './stack';

const venvBin = path.join(repoRoot, '.venv', 'bin');

export interface AccountsServer {
  baseUrl: string;
  tokens: Record<string, string>;
  stop: () => Promise<void>;
}

export async function startAccountsServer(people: string[], password: string): Promise<AccountsServer> {
  const root = await mkdtemp(path.join(tmpdir(), 'rabbithole-e2e-accounts-'));
  const env = cleanEnv({
    RABBITHOLE_STORAGE__DATA_DIR: path.join(root, 'data'),
    RABBITHOLE_SERVER__AUTH: 'accounts',
    RABBITHOLE_SERVER__WARM_UP: 'false',
    // cheap hashes: the test checks who sees what, not the hash's cost
    RABBITHOLE_ACCOUNTS__HASH_MEMORY_KIB: '8192',
    RABBITHOLE_ACCOUNTS__HASH_TIME_COST: '1',
  });
  const cli = (args: string[], input = ''): string => {
    const done = spawnSync(path.join(venvBin, 'rabbithole'), args, { env, cwd: root, input, encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`rabbithole ${args.join(' ')}: exit ${done.status}\n${done.stderr}`);
    return done.stdout.trim();
  };
  const tokens: Record<string, string> = {};
  for (const name of people) {
    cli(['users', 'add', name, '--password-stdin'], `${password}\n`);
    tokens[name] = cli(['tokens', 'create', name, '--name', 'e2e']);
  }
  const port = await freePort();
  const server = start('rabbithole serve (accounts)', path.join(venvBin, 'rabbithole'), ['serve', '--port', String(port)], env, root);
  const baseUrl = `http://127.0.0.1:${port}/`;
  const stopAll = async () => {
    await stop(server);
    await rm(root, { recursive: true, force: true });
  };
  try {
    await waitUntil(server, `${baseUrl}health`, async (r) => r.ok, 180_000);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { baseUrl, tokens, stop: stopAll };
}
