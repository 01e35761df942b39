/**
 * The app behind a reverse proxy under a sub-path, in the browser: a proxy in this test serves the server at
 * /research/ and strips the prefix (as nginx's `proxy_pass http://server/;`), streaming responses unbuffered
 * (server-sent events). Every request the app makes must stay under /research/.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, openPage, screenshot } from './browser';
import { api, baseUrl, type RunDetail, startRun, waitForStatus } from './helpers';
import { freePort } from './stack';

const PREFIX = '/research';
let proxy: Server;
let proxyUrl: string;
let browser: Browser;
const outside: string[] = [];

function forward(incoming: IncomingMessage, outgoing: ServerResponse): void {
  const path = incoming.url ?? '/';
  if (!path.startsWith(`${PREFIX}/`)) {
    outside.push(path);
    outgoing.writeHead(404).end('outside the prefix');
    return;
  }
  const target = new URL(baseUrl());
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      method: incoming.method,
      path: path.slice(PREFIX.length),
      // as nginx with `proxy_set_header X-Forwarded-Host $http_host` (the Origin check's own host)
      headers: { ...incoming.headers, host: target.host, 'x-forwarded-host': incoming.headers.host },
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  upstream.on('error', () => outgoing.destroy());
  incoming.pipe(upstream);
}

beforeAll(async () => {
  const port = await freePort();
  proxy = createServer(forward);
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${port}${PREFIX}/`;
  browser = await launchBrowser('en-US');
});

afterAll(async () => {
  await browser?.close();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
});

test('under /research/ the app, its API calls and its event streams stay under the prefix', async () => {
  const requested: string[] = [];
  browser.context.on('request', (r) => requested.push(new URL(r.url()).pathname));
  const { page, errors } = await openPage(browser, proxyUrl);
  await page.getByRole('navigation').waitFor();
  const runId = await startRun(page, 'quick', proxyUrl);
  expect(page.url().startsWith(proxyUrl)).toBe(true);
  await page.getByTestId('report').waitFor({ timeout: 150_000 });
  expect((await waitForStatus(runId, ['done'])).run.status).toBe('done');
  const detail = await api<RunDetail>(`api/runs/${runId}`);
  // a finished run opens on its report; its tasks are one tab away
  await page.getByRole('tab', { name: 'How it was researched' }).click();
  for (const task of detail.todo) await page.getByTestId('run-todo').getByText(task.title).first().waitFor();
  await page.getByRole('navigation').getByRole('link', { name: 'Collections' }).click();
  await page.getByRole('link', { name: 'laws' }).first().waitFor();
  await screenshot(page, 'subpath');

  expect(requested.some((path) => path.startsWith(`${PREFIX}/api/runs/${runId}/events`))).toBe(true);
  expect(requested.some((path) => path.startsWith(`${PREFIX}/assets/`))).toBe(true);
  expect(requested.filter((path) => !path.startsWith(`${PREFIX}/`))).toEqual([]);
  // The browser itself asks for /favicon.ico at the host's root when a page names no icon.
  expect(outside.filter((path) => path !== '/favicon.ico')).toEqual([]);
  expect(errors).toEqual([]);
});
