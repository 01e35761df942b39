/**
 * The server's defences, in Chromium: a page on another origin (a second local port) posts an upload with
 * `fetch(..., {mode: 'no-cors', method: 'POST', body: FormData})`, which a browser sends without asking
 * (no preflight): the server refuses it and nothing is ingested or replaced. The API documentation
 * (Swagger UI at /docs, ReDoc at /redoc) renders under its Content-Security-Policy and loads nothing from
 * elsewhere.
 */
import { type Server, createServer } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, openPage, screenshot } from './browser';
import { api, baseUrl } from './helpers';
import { freePort, LAWS } from './stack';

let browser: Browser;
let attacker: Server;
let attackerUrl: string;

/** The other origin's page: it posts a "PDF" named like a document of collection "laws", and a new
 * collection, then says it is done. */
function attackerPage(target: string): string {
  return `<!doctype html><html><body><script>
  // The answers are opaque to the page (and Cross-Origin-Resource-Policy makes fetch reject them).
  const post = (url, body) => fetch(url, { method: 'POST', mode: 'no-cors', body }).catch(() => null);
  (async () => {
    const form = new FormData();
    form.append('files', new Blob(['%PDF-1.7 planted'], { type: 'application/pdf' }), 'AtKostV.pdf');
    await post('${target}api/collections/${LAWS}/documents', form);
    await post('${target}api/collections', new Blob(['{"name": "planted"}'], { type: 'text/plain' }));
    document.title = 'done';
  })();
  </script></body></html>`;
}

interface Document {
  file_name: string;
  status: string;
  updated_at?: string;
}

beforeAll(async () => {
  const port = await freePort();
  attacker = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' }).end(attackerPage(baseUrl()));
  });
  await new Promise<void>((resolve) => attacker.listen(port, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${port}/`;
  browser = await launchBrowser('en-US');
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
});

async function pdfBytes(name: string): Promise<number> {
  const answer = await fetch(`${baseUrl()}api/collections/${LAWS}/documents/${name}/pdf`);
  expect(answer.status).toBe(200);
  return (await answer.arrayBuffer()).byteLength;
}

test('a page on another origin cannot upload, replace or create anything', async () => {
  const before = await api<Document[]>(`api/collections/${LAWS}/documents`);
  const size = await pdfBytes('AtKostV.pdf');
  const sent: string[] = [];
  const { page, errors } = await openPage(browser, 'about:blank');
  page.on('request', (request) => {
    if (request.method() === 'POST') sent.push(new URL(request.url()).pathname);
  });
  await page.goto(attackerUrl);
  await page.waitForFunction(() => document.title === 'done');
  expect(sent).toEqual([`/api/collections/${LAWS}/documents`, '/api/collections']); // the browser sent both
  expect(await pdfBytes('AtKostV.pdf')).toBe(size); // not replaced on disk
  expect(await api<Document[]>(`api/collections/${LAWS}/documents`)).toEqual(before);
  const collections = await api<{ name: string }[]>('api/collections');
  expect(collections.map((c) => c.name)).not.toContain('planted');
  expect(errors).toEqual([]);
});

for (const [path, rendered] of [
  ['docs', '.swagger-ui .info .title'],
  ['redoc', 'h1'],
] as const) {
  test(`/${path} renders under its Content-Security-Policy and loads nothing from elsewhere`, async () => {
    const { page, errors } = await openPage(browser, 'about:blank');
    const requested: string[] = [];
    const violations: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') violations.push(message.text());
    });
    const answer = await page.goto(`${baseUrl()}${path}`);
    expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.locator(rendered).first().waitFor();
    await expect.poll(() => page.locator(rendered).first().innerText()).toContain('Rabbithole');
    await page.waitForLoadState('networkidle');
    await screenshot(page, `api-${path}`);
    const origin = new URL(baseUrl()).origin;
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url))).toEqual([]);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });
}
