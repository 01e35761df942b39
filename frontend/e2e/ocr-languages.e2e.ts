/**
 * A collection's OCR languages in the browser: a scanned German page (the sample AtG's second page at 200 dpi)
 * uploaded is read in the server's default (German and English: "Tätigkeit"); the collection is set to English
 * alone, the page is counted as read in other languages, and the button reads it again from its original in
 * English ("Tatigkeit": no umlauts), the job's progress shown on the button.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser } from './browser';
import { api, baseUrl, dropFiles } from './helpers';
import { repoRoot, sampleKb } from './stack';

const COLLECTION = 'scans-languages';
const SCANNED = 'AtG-page.pdf';
const LONG = { timeout: 240_000 };

let browser: Browser;
let page: Page;
let folder = '';
const errors: string[] = [];

/** The scanned page, made by rabbithole.devtools.scans (nothing checked in). */
async function scannedPage(): Promise<string> {
  folder = await mkdtemp(path.join(tmpdir(), 'rabbithole-ocr-languages-e2e-'));
  const target = path.join(folder, SCANNED);
  const script = 'import sys; from pathlib import Path; from rabbithole.devtools.scans import scan_pdf; '
    + 'scan_pdf(Path(sys.argv[1]), Path(sys.argv[2]), 200, pages=[1])';
  await promisify(execFile)(path.join(repoRoot, '.venv', 'bin', 'python'), ['-c', script, path.join(sampleKb, 'AtG.pdf'), target]);
  return target;
}

async function pageText(): Promise<string> {
  const pages = await api<{ text: string }[]>(`api/collections/${COLLECTION}/documents/${SCANNED}/pages`);
  return pages.map((p) => p.text).join('\n');
}

beforeAll(async () => {
  const scanned = await scannedPage();
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${baseUrl()}#/collections`);
  await page.getByLabel('Collection name').fill(COLLECTION);
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.waitForURL(new RegExp(`#/collections/${COLLECTION}$`));
  const pdf = (await readFile(scanned)).toString('base64');
  await dropFiles(page, [{ name: SCANNED, base64: pdf, type: 'application/pdf' }]);
  await page.getByRole('list', { name: 'Uploads' }).getByText('ingested', { exact: true }).waitFor(LONG);
});

afterAll(async () => {
  await browser?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

test('the OCR languages are changed and the scan is read again in them', async () => {
  expect(await pageText()).toContain('Tätigkeit');
  const panel = page.getByTestId('ocr-languages');
  await expect.poll(() => panel.getByTestId('ocr-languages-current').textContent()).toBe(
    "Read in: German (deu), English (eng) (the server's default)",
  );
  await panel.getByRole('checkbox', { name: 'German (deu)' }).uncheck();
  await panel.getByRole('button', { name: 'Save the OCR languages' }).click();
  await expect.poll(() => panel.getByTestId('ocr-languages-current').textContent()).toBe(
    "Read in: English (eng) (this collection's own setting)",
  );
  const notice = panel.getByTestId('ocr-read-otherwise');
  expect(await notice.textContent()).toContain('1 document was read by OCR in other languages than English (eng).');

  await notice.getByRole('button', { name: 'Read again in English (eng)' }).click();
  await notice.waitFor({ state: 'detached', ...LONG });
  const text = await pageText();
  expect(text).toContain('Tatigkeit');
  expect(text).not.toContain('Tätigkeit');
  const documents = await api<{ warnings: string[] }[]>(`api/collections/${COLLECTION}/documents`);
  expect(documents[0]?.warnings.some((w) => w.includes('read by OCR (Tesseract, eng)'))).toBe(true);
  expect(errors).toEqual([]);
});
