/**
 * Two people on one server with accounts, in two Chromium profiles (two cookie jars): each signs in with the
 * app's form and sees their own collection, never the other's, also when opening its address directly; a
 * collection made and a PDF uploaded in the app (the session's CSRF token sent by the client and the upload)
 * stay the maker's; the cookie alone, without the CSRF header, changes nothing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type AccountsServer, startAccountsServer } from './accountsServer';
import { type Browser, launchBrowser, openPage, screenshot } from './browser';
import { dropFiles } from './helpers';
import { sampleKb } from './stack';

const PASSWORD = 'correct horse battery';
let server: AccountsServer;
let english: Browser;
let german: Browser;

beforeAll(async () => {
  server = await startAccountsServer(['ann', 'bo'], PASSWORD);
  const owners: [string, string][] = [
    ['ann', 'ann-matter'],
    ['bo', 'bo-matter'],
  ];
  for (const [name, collection] of owners) {
    const created = await fetch(`${server.baseUrl}api/collections`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.tokens[name] ?? ''}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: collection }),
    });
    expect(created.status).toBe(201);
  }
  english = await launchBrowser('en-US');
  german = await launchBrowser('de-DE');
});

afterAll(async () => {
  await english?.close();
  await german?.close();
  await server?.stop();
});

test('each person signs in and sees only their own collection', async () => {
  const people = [
    { name: 'ann', own: 'ann-matter', other: 'bo-matter', browser: english, signIn: 'Sign in', password: 'Password', as: 'Signed in as ann' },
    { name: 'bo', own: 'bo-matter', other: 'ann-matter', browser: german, signIn: 'Anmelden', password: 'Passwort', as: 'Angemeldet als bo' },
  ];
  const pages = [];
  for (const person of people) {
    const { page, errors } = await openPage(person.browser, `${server.baseUrl}#/collections`);
    const dialog = page.getByRole('dialog', { name: person.signIn });
    await dialog.waitFor();
    await dialog.getByLabel('Name').fill(person.name);
    await dialog.getByLabel(person.password).fill(PASSWORD);
    await dialog.getByRole('button', { name: person.signIn }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: person.own }).waitFor();
    await page.getByText(person.as).waitFor();
    pages.push({ page, errors, person });
  }
  // both signed in at once, each in their own browser: neither sees the other's collection
  for (const { page, errors, person } of pages) {
    await page.reload();
    await page.getByRole('link', { name: person.own }).waitFor();
    expect(await page.getByRole('link', { name: person.other }).count()).toBe(0);
    const listed = await page.evaluate(async () => (await fetch('api/collections')).json());
    expect(listed.map((c: { name: string }) => c.name)).toEqual([person.own]);
    const foreign = await page.evaluate(async (other) => (await fetch(`api/collections/${other}`)).status, person.other);
    expect(foreign).toBe(404);
    await screenshot(page, `accounts-${person.name}`);
    expect(errors).toEqual([]);
  }
});

test('a signed-in person creates a collection and uploads a PDF (the session CSRF token sent), the other never sees it', async () => {
  const { page, errors } = await openPage(english, `${server.baseUrl}#/collections`);
  await page.getByRole('link', { name: 'ann-matter' }).waitFor(); // still signed in from the first test
  await page.getByLabel('Collection name').fill('Akte Ann');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.waitForURL(/#\/collections\/akte-ann$/);
  const pdf = (await readFile(path.join(sampleKb, 'AtVfV.pdf'))).toString('base64');
  await dropFiles(page, [{ name: 'AtVfV.pdf', base64: pdf, type: 'application/pdf' }]);
  await page.getByRole('list', { name: 'Uploads' }).getByText('ingested', { exact: true }).waitFor({ timeout: 180_000 });
  expect(errors).toEqual([]);

  const { page: other } = await openPage(german, `${server.baseUrl}#/collections`);
  await other.getByRole('link', { name: 'bo-matter' }).waitFor();
  expect(await other.getByRole('link', { name: 'akte-ann' }).count()).toBe(0);
  const pdfStatus = await other.evaluate(async () => (await fetch('api/collections/akte-ann/documents/AtVfV.pdf/pdf')).status);
  expect(pdfStatus).toBe(404);
  // without the CSRF header, the cookie alone changes nothing (the app's own page, same origin)
  const bare = await other.evaluate(
    async () => (await fetch('api/collections', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name": "forged"}' })).status,
  );
  expect(bare).toBe(403);
});
