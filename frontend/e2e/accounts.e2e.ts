/**
 * Two people on one server with accounts, in two Chromium profiles (two cookie jars): each signs in with the
 * app's form and sees their own collection, never the other's, also when opening its address directly.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type AccountsServer, startAccountsServer } from './accountsServer';
import { type Browser, launchBrowser, openPage, screenshot } from './browser';

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
