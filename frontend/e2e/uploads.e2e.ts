/** Uploads and names in the browser: a collection named "Meine Akte", a drop of an empty file and a spreadsheet
 * beside a PDF with a long name (clear messages, the PDF ingested, its name wrapped at 390 px), and the runs
 * list searched, filtered by status and a run deleted. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, openPage, screenshot } from './browser';
import { api, baseUrl, dropFiles, waitForStatus } from './helpers';
import { LAWS, sampleKb } from './stack';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser('en-US');
});

afterAll(async () => {
  await browser?.close();
});

const LONG_NAME = `${'Verordnung-über-die-Deckungsvorsorge-nach-dem-Atomgesetz-'.repeat(3)}Fassung-2024.pdf`;

test('"Meine Akte" is created as meine-akte; an empty file and a spreadsheet are refused by name, the PDF is ingested', async () => {
  const { page, errors } = await openPage(browser, `${baseUrl()}#/collections`);
  const name = page.getByLabel('Collection name');
  await name.fill('Meine Akte');
  await page.getByText('Will be created as “meine-akte”.').waitFor();
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.waitForURL(/#\/collections\/meine-akte$/);

  const pdf = (await readFile(path.join(sampleKb, 'AtVfV.pdf'))).toString('base64');
  await dropFiles(page, [
    { name: 'leer.pdf', type: 'application/pdf' },
    { name: 'tabelle.xlsx', text: 'PK\x03\x04 Zellen' },
    { name: LONG_NAME, base64: pdf, type: 'application/pdf' },
  ]);

  const refused = page.getByRole('list', { name: 'Files not uploaded' });
  await refused.waitFor();
  const empty = refused.getByRole('listitem').filter({ hasText: 'leer.pdf' });
  const sheet = refused.getByRole('listitem').filter({ hasText: 'tabelle.xlsx' });
  const read = 'PDF, Word (.docx), HTML, Markdown and text files are read, and PNG, JPEG and TIFF images (by OCR).';
  expect(await empty.textContent()).toContain(`not uploaded: the file is empty (0 bytes). ${read}`);
  expect(await sheet.textContent()).toContain(`not uploaded: a “.xlsx” file cannot be read. ${read}`);
  expect(await page.getByText('tabelle.xlsx.pdf').count()).toBe(0);

  const uploads = page.getByRole('list', { name: 'Uploads' });
  expect(await uploads.getByRole('listitem').count()).toBe(1);
  await uploads.getByText('ingested', { exact: true }).waitFor({ timeout: 120_000 });
  const listed = await api<{ file_name: string; status: string }[]>('api/collections/meine-akte/documents');
  expect(listed.map((d) => [d.file_name, d.status])).toEqual([[LONG_NAME, 'ingested']]);

  // the long name wraps inside the documents table, at 1366 px and at 390 px, its full name in the title
  const documents = page.getByTestId('documents');
  const cell = documents.locator(`td[title="${LONG_NAME}"]`);
  await cell.waitFor();
  for (const width of [1366, 390]) {
    await page.setViewportSize({ width, height: 844 });
    const fits = await documents.evaluate((panel) => {
      const table = panel.querySelector('table');
      return table !== null && table.getBoundingClientRect().right <= panel.getBoundingClientRect().right + 1;
    });
    expect(fits, `documents table at ${width} px`).toBe(true);
    const box = await cell.boundingBox();
    expect(box !== null && box.width < 400, `file name cell at ${width} px`).toBe(true);
  }
  await screenshot(page, 'uploads-refused-390');
  await page.setViewportSize({ width: 1366, height: 860 });
  expect(errors).toEqual([]);
});

async function post(pathname: string, body: unknown): Promise<{ run_id: string }> {
  const answer = await fetch(`${baseUrl()}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.ok, `${pathname}: ${answer.status}`).toBe(true);
  return (await answer.json()) as { run_id: string };
}

test('the runs list is searched, filtered by status, and a run deleted after a confirmation', async () => {
  const waiting = await post('api/runs', {
    question: 'Welche Gebühren fallen für die Aufbewahrung an (Uploads-Suche Alpha)?',
    collections: [LAWS],
    mode: 'interactive',
  });
  const cancelled = await post('api/runs', {
    question: 'Wer trägt die Kosten der Aufsicht (Uploads-Suche Beta)?',
    collections: [LAWS],
    mode: 'interactive',
  });
  await post(`api/runs/${cancelled.run_id}/cancel`, {});
  await waitForStatus(cancelled.run_id, ['cancelled']);
  await waitForStatus(waiting.run_id, ['waiting_for_input']);

  const { page, errors } = await openPage(browser, `${baseUrl()}#/runs`);
  const list = page.getByTestId('runs-list');
  const rows = list.locator('tbody tr');
  await page.getByLabel('Search the questions').fill('uploads-suche');
  await expect.poll(() => rows.count()).toBe(2);
  const cancelledRow = rows.filter({ hasText: 'Beta' });
  expect(await cancelledRow.locator('.run-duration').textContent()).toMatch(/^\d+:\d\d$/);

  await page.getByLabel('Status').selectOption('waiting_for_input');
  await expect.poll(() => rows.count()).toBe(1);
  expect(await rows.first().textContent()).toContain('Alpha');
  await page.getByLabel('Status').selectOption('error');
  await list.getByText('No run matches the search or the status.').waitFor();

  await page.getByLabel('Status').selectOption('');
  await expect.poll(() => rows.count()).toBe(2);
  page.once('dialog', (dialog) => void dialog.dismiss());
  await cancelledRow.getByRole('button', { name: /^Delete the run/ }).click();
  expect(await rows.count()).toBe(2);
  page.once('dialog', (dialog) => void dialog.accept());
  await cancelledRow.getByRole('button', { name: /^Delete the run/ }).click();
  await expect.poll(() => rows.count()).toBe(1);
  expect((await fetch(`${baseUrl()}api/runs/${cancelled.run_id}`)).status).toBe(404);
  await screenshot(page, 'runs-list-filtered');

  await post(`api/runs/${waiting.run_id}/cancel`, {});
  expect(errors).toEqual([]);
});
