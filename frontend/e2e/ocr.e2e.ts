/**
 * A scanned PDF (the sample AtKostV, every page an image at 300 dpi: no text layer) uploaded in the browser is
 * read by OCR; a quick research run on it cites it, and the citation opens on the scanned page's image with
 * the quote's words marked by the boxes OCR returned, the OCR text beside it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, screenshot } from './browser';
import { QUESTION, api, baseUrl, dropFiles, waitForStatus } from './helpers';
import { repoRoot, sampleKb } from './stack';

const SCANS = 'scans';
const SCANNED = 'AtKostV-scan.pdf';
const LONG = { timeout: 150_000 };

let browser: Browser;
let page: Page;
let folder = '';
const errors: string[] = [];

interface PageOut {
  number: number;
  text: string;
  source: string;
  ocr_confidence: number | null;
}

interface Source {
  n: number;
  document: string;
  page: number;
  quote: string;
  start: number;
  end: number;
  ocr_confidence: number | null;
}

/** The scanned copy, made by rabbithole.devtools.scans (nothing checked in). */
async function scannedCopy(): Promise<string> {
  folder = await mkdtemp(path.join(tmpdir(), 'rabbithole-ocr-e2e-'));
  const target = path.join(folder, SCANNED);
  const script = 'import sys; from pathlib import Path; from rabbithole.devtools.scans import scan_pdf; '
    + 'scan_pdf(Path(sys.argv[1]), Path(sys.argv[2]), 300)';
  await promisify(execFile)(path.join(repoRoot, '.venv', 'bin', 'python'), ['-c', script, path.join(sampleKb, 'AtKostV.pdf'), target]);
  return target;
}

beforeAll(async () => {
  const scanned = await scannedCopy();
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${baseUrl()}#/collections`);
  await page.getByLabel('Collection name').fill(SCANS);
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.waitForURL(/#\/collections\/scans$/);
  const pdf = (await readFile(scanned)).toString('base64');
  await dropFiles(page, [{ name: SCANNED, base64: pdf, type: 'application/pdf' }]);
  await page.getByRole('list', { name: 'Uploads' }).getByText('ingested', { exact: true }).waitFor({ timeout: 240_000 });
});

afterAll(async () => {
  await browser?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

test('the scanned PDF is read by OCR, and a citation of it is marked on the page image', async () => {
  const pages = await api<PageOut[]>(`api/collections/${SCANS}/documents/${SCANNED}/pages`);
  expect(pages.map((p) => p.source)).toEqual(['ocr', 'ocr', 'ocr', 'ocr']);
  expect(pages.every((p) => (p.ocr_confidence ?? 0) > 80)).toBe(true);

  await page.getByRole('navigation').getByRole('link', { name: 'New run' }).click();
  await page.getByRole('textbox', { name: 'Question' }).fill(QUESTION);
  await page.getByRole('checkbox', { name: SCANS, exact: true }).check();
  await page.getByRole('radio', { name: /Quick/ }).check();
  await page.getByRole('button', { name: 'Start research' }).click();
  await page.waitForURL(/#\/runs\/[0-9a-f-]+$/);
  const runId = new URL(page.url()).hash.split('/').pop() ?? '';
  await waitForStatus(runId, ['done']);
  const report = await api<{ sources: Source[] }>(`api/runs/${runId}/report`);
  const cited = report.sources.find((s) => s.document === SCANNED);
  expect(cited, 'the report cites the scanned PDF').toBeDefined();
  if (!cited) return;
  // the quote is verbatim to the OCR text stored as the page's text, and the source carries OCR's confidence
  const text = pages.find((p) => p.number === cited.page)?.text ?? '';
  expect(text.slice(cited.start, cited.end)).toBe(cited.quote);
  expect(cited.ocr_confidence).toBeGreaterThan(80);

  await page.getByTestId('report').waitFor(LONG);
  const sources = page.getByRole('region', { name: 'Sources' }).or(page.locator('section[aria-labelledby="sources-title"]'));
  await sources.getByRole('button', { name: new RegExp(`^\\[${cited.n}\\] `) }).click();
  const viewer = page.getByTestId('citation-viewer');
  await viewer.waitFor();
  const scan = viewer.getByTestId('scanned-page');
  await expect.poll(() => scan.getAttribute('data-status'), LONG).toBe('ready');
  await expect.poll(async () => Number(await scan.getAttribute('data-marks')), LONG).toBeGreaterThan(0);
  expect(await viewer.getByTestId('pdf-page').count()).toBe(0);
  expect(await viewer.getByTestId('ocr-note').textContent()).toContain('read by OCR');

  // the marks lie on the image, and the first one is in view inside the frame
  const image = await scan.locator('img').boundingBox();
  const mark = await scan.getByTestId('ocr-mark').first().boundingBox();
  expect(image && mark).toBeTruthy();
  if (image && mark) {
    expect(image.width).toBeGreaterThan(300);
    expect(mark.x).toBeGreaterThanOrEqual(image.x);
    expect(mark.x + mark.width).toBeLessThanOrEqual(image.x + image.width + 1);
    expect(mark.y).toBeGreaterThanOrEqual(image.y);
    // drawn over the image where OCR found the word (absolutely placed: styles.css's blocks all closed)
    expect(mark.width).toBeGreaterThan(2);
  }
  const frame = await scan.boundingBox();
  if (frame && mark) expect(mark.y).toBeLessThan(frame.y + frame.height);
  // the OCR text is shown open beside the image, the quote marked in it
  const ocrText = viewer.getByTestId('page-text');
  expect(await ocrText.isVisible()).toBe(true);
  expect(await ocrText.locator('mark.highlight').count()).toBe(1);
  await screenshot(page, 'ocr-citation');
  expect(errors).toEqual([]);
});
