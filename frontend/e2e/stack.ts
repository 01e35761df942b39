/**
 * The system under test, as a user runs it: the fake Ollama over HTTP (backend/rabbithole/devtools), the real
 * server (`.venv/bin/rabbithole serve`) on a free port with a temporary data directory, serving the built web
 * app (frontend/dist), and a collection "laws" of two sample PDFs uploaded over the API (uploaded PDFs are
 * served, so citations open on the PDF page).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sampleKb = path.join(repoRoot, 'kb', 'sample');
export const venvBin = path.join(repoRoot, '.venv', 'bin');

/** The PDFs of collection "laws" (small statutes of kb/sample). */
export const LAW_PDFS = ['AtKostV.pdf', 'BAStrlSchG.pdf'];
export const LAWS = 'laws';

export interface Stack {
  /** The app's URL, ending in "/". */
  baseUrl: string;
  ollamaUrl: string;
  stop: () => Promise<void>;
}

export interface Process {
  child: ChildProcess;
  output: string[];
  name: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The environment without the developer's Rabbithole settings, plus ``extra``. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('RABBITHOLE_') && key !== 'OLLAMA_HOST') env[key] = value;
  }
  return { ...env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', ANONYMIZED_TELEMETRY: 'False', ...extra };
}

export function start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Process {
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString().split('\n').filter(Boolean));
    output.splice(0, Math.max(0, output.length - 200));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output, name };
}

function failure(process: Process, why: string): Error {
  return new Error(`${process.name}: ${why}\n--- its output ---\n${process.output.join('\n')}`);
}

/** Polls ``url`` until ``ready`` accepts its answer; fails with the process's output if it dies first. */
export async function waitUntil(
  process: Process,
  url: string,
  ready: (response: Response) => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (process.child.exitCode !== null) throw failure(process, `exited with ${process.child.exitCode}`);
    try {
      if (await ready(await fetch(url))) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw failure(process, `not ready at ${url} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function stop(process: Process): Promise<void> {
  if (process.child.exitCode !== null || process.child.signalCode !== null) return;
  const exited = new Promise((resolve) => process.child.once('exit', resolve));
  process.child.kill('SIGTERM');
  const timer = setTimeout(() => process.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export async function startStack(): Promise<Stack> {
  const rabbithole = path.join(venvBin, 'rabbithole');
  if (!existsSync(rabbithole)) throw new Error(`${rabbithole} is missing: run \`make setup\` first`);
  if (!existsSync(path.join(repoRoot, 'frontend', 'dist', 'index.html'))) {
    throw new Error('frontend/dist is missing: run `npm run build` (or `make web`) first');
  }
  const root = await mkdtemp(path.join(tmpdir(), 'rabbithole-e2e-'));
  const ollamaPort = await freePort();
  const ollamaUrl = `http://127.0.0.1:${ollamaPort}`;
  const env = cleanEnv({
    RABBITHOLE_STORAGE__DATA_DIR: path.join(root, 'data'),
    RABBITHOLE_KB_DIR: path.join(root, 'kb'),
    RABBITHOLE_LLM__BASE_URL: ollamaUrl,
  });
  const python = path.join(venvBin, 'python');
  const fake = start('fake Ollama', python, ['-m', 'rabbithole.devtools.fake_ollama', '--port', String(ollamaPort)], env, root);
  const processes: Process[] = [fake];
  const stopAll = async () => {
    for (const process of processes.reverse()) await stop(process);
    await rm(root, { recursive: true, force: true });
  };
  try {
    await waitUntil(fake, `${ollamaUrl}/api/version`, async (r) => r.ok, 60_000);
    const port = await freePort();
    const server = start('rabbithole serve', rabbithole, ['serve', '--port', String(port)], env, root);
    processes.push(server);
    const baseUrl = `http://127.0.0.1:${port}/`;
    await waitUntil(
      server,
      `${baseUrl}health`,
      async (r) => r.ok && ((await r.json()) as { status: string }).status !== 'starting',
      180_000,
    );
    await uploadCollection(baseUrl, LAWS, LAW_PDFS);
    return { baseUrl, ollamaUrl, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Creates collection ``name`` and uploads ``pdfs`` of kb/sample into it over the API; waits for the job.
 * ``renamed``: the name a PDF is uploaded under, where it is not its own. */
export async function uploadCollection(
  baseUrl: string,
  name: string,
  pdfs: string[],
  renamed: Record<string, string> = {},
): Promise<void> {
  const created = await fetch(`${baseUrl}api/collections`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (created.status !== 201) throw new Error(`creating ${name}: ${created.status} ${await created.text()}`);
  const form = new FormData();
  for (const pdf of pdfs) {
    const bytes = await readFile(path.join(sampleKb, pdf));
    form.append('files', new Blob([bytes], { type: 'application/pdf' }), renamed[pdf] ?? pdf);
  }
  const upload = await fetch(`${baseUrl}api/collections/${name}/documents`, { method: 'POST', body: form });
  if (upload.status !== 202) throw new Error(`uploading to ${name}: ${upload.status} ${await upload.text()}`);
  const job = (await upload.json()) as { id: string };
  const deadline = Date.now() + 180_000;
  for (;;) {
    const state = (await (await fetch(`${baseUrl}api/jobs/${job.id}`)).json()) as {
      status: string;
      files: { file_name: string; status: string; reason: string | null }[];
    };
    if (state.status !== 'running' && state.status !== 'pending') {
      const bad = state.files.filter((file) => file.status !== 'ingested');
      if (bad.length > 0) throw new Error(`ingesting ${name}: ${JSON.stringify(bad)}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`ingesting ${name}: job ${job.id} still ${state.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Sets the fake model's delay before every answer (runs long enough to watch, reload and cancel). */
export async function setModelLatency(ollamaUrl: string, latencyMs: number): Promise<void> {
  const answer = await fetch(`${ollamaUrl}/_fake/latency`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ latency_ms: latencyMs }),
  });
  if (!answer.ok) throw new Error(`fake Ollama refused the latency: ${answer.status}`);
}
