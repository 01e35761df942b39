/** Collections in the browser: create one, drop PDFs on it (per-file progress and errors), see the documents,
 * search them and open a hit on its page. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, openPage, screenshot } from './browser';
import { api, baseUrl, dropFiles } from './helpers';
import { sampleKb } from './stack';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser('en-US');
});

afterAll(async () => {
  await browser?.close();
});

test('create a collection, drop a PDF and a broken file on it, search it', async () => {
  const { page, errors } = await openPage(browser, `${baseUrl()}#/collections`);
  await page.getByLabel('Collection name').fill('inbox');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.waitForURL(/#\/collections\/inbox$/);

  // a real drop: a DataTransfer holding the files, dispatched on the drop zone
  const pdf = (await readFile(path.join(sampleKb, 'AtVfV.pdf'))).toString('base64');
  await dropFiles(page, [
    { name: 'AtVfV.pdf', base64: pdf, type: 'application/pdf' },
    { name: 'notes.pdf', text: 'not a PDF at all', type: 'application/pdf' },
  ]);

  const uploads = page.getByRole('list', { name: 'Uploads' });
  await uploads.getByText('AtVfV.pdf').waitFor();
  const good = uploads.getByRole('listitem').filter({ hasText: 'AtVfV.pdf' });
  // a file named .pdf whose content is not a PDF is told before it is sent, and the PDF goes on
  const bad = page.getByRole('list', { name: 'Files not uploaded' }).getByRole('listitem').filter({ hasText: 'notes.pdf' });
  await good.getByText('ingested', { exact: true }).waitFor({ timeout: 120_000 });
  await bad.getByText(/its content is not a PDF/).waitFor();

  const documents = page.getByTestId('documents');
  await documents.getByText('AtVfV.pdf').first().waitFor();
  const listed = await api<{ file_name: string; status: string }[] | { items: { file_name: string; status: string }[] }>(
    'api/collections/inbox/documents',
  );
  const rows = Array.isArray(listed) ? listed : listed.items;
  expect(rows.filter((row) => row.status === 'ingested').map((row) => row.file_name)).toEqual(['AtVfV.pdf']);

  await page.getByLabel('Search the collection').fill('Verfahren Genehmigung');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByTestId('search-results');
  await results.getByRole('listitem').first().waitFor();
  await screenshot(page, 'collection');
  await results.getByRole('listitem').first().getByRole('button').first().click();
  await page.getByTestId('document-viewer').waitFor();
  await screenshot(page, 'collection-document');
  expect(errors).toEqual([]);
});
