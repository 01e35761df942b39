/** A Word document in the browser (issue 28): a DOCX (a copy of kb/sample's AtKostV, made by
 * rabbithole.devtools.format_copies) dropped on a new collection is ingested; a search hit opens it as its
 * stored text with the passage highlighted and its heading path shown, and the viewer offers the original
 * .docx as a download, not a PDF. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, openPage, screenshot } from './browser';
import { api, baseUrl, dropFiles } from './helpers';
import { sampleKb, venvBin } from './stack';

const DOCX = 'AtKostV.docx';
let browser: Browser;
let folder = '';
let docx: Buffer;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'rabbithole-formats-'));
  const target = path.join(folder, DOCX);
  const script =
    'import sys; from pathlib import Path; from rabbithole.ingestion.parser import parse_document; ' +
    'from rabbithole.devtools.format_copies import write_copy; ' +
    'write_copy(parse_document(Path(sys.argv[1])), Path(sys.argv[2]))';
  await promisify(execFile)(path.join(venvBin, 'python'), ['-c', script, path.join(sampleKb, 'AtKostV.pdf'), target]);
  docx = await readFile(target);
  browser = await launchBrowser('en-US');
});

afterAll(async () => {
  await browser?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

test('a dropped DOCX is ingested; a search hit opens its text with the passage highlighted and the heading path', async () => {
  const { page, errors } = await openPage(browser, `${baseUrl()}#/collections`);
  await page.getByLabel('Collection name').fill('entwuerfe');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.waitForURL(/#\/collections\/entwuerfe$/);

  await dropFiles(page, [{ name: DOCX, base64: docx.toString('base64') }]);
  const uploads = page.getByRole('list', { name: 'Uploads' });
  await uploads.getByText('ingested', { exact: true }).waitFor({ timeout: 120_000 });
  const listed = await api<{ file_name: string; format: string; viewer: string }[]>('api/collections/entwuerfe/documents');
  expect(listed.map((d) => [d.file_name, d.format, d.viewer])).toEqual([[DOCX, 'docx', 'text']]);

  await page.getByLabel('Search the collection').fill('Gebühren Genehmigung');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByTestId('search-results');
  await results.getByRole('listitem').first().waitFor();
  await results.getByRole('listitem').first().getByRole('button').first().click();

  const viewer = page.getByTestId('document-viewer');
  const text = viewer.getByTestId('text-page');
  await text.waitFor();
  const mark = text.locator('mark.highlight');
  expect(await mark.count()).toBe(1);
  const marked = (await mark.textContent()) ?? '';
  expect(marked.length).toBeGreaterThan(50);
  expect(await text.textContent()).toContain(marked);
  // the start of the mark is scrolled into the text's box
  const [box, markBox] = [await text.boundingBox(), await mark.boundingBox()];
  expect(box !== null && markBox !== null && markBox.y >= box.y && markBox.y < box.y + box.height).toBe(true);
  const headings = viewer.getByTestId('viewer-heading-path');
  expect(await headings.textContent()).toMatch(/^Headings: .*§ \d+/);
  expect(await viewer.getByTestId('pdf-page').count()).toBe(0);
  expect(await viewer.getByRole('link', { name: 'Open the whole PDF' }).count()).toBe(0);

  const original = viewer.getByRole('link', { name: 'Download the original file' });
  const href = (await original.getAttribute('href')) ?? '';
  expect(href).toMatch(/\/api\/collections\/entwuerfe\/documents\/AtKostV\.docx\/file$/);
  const served = await fetch(new URL(href, baseUrl()));
  expect(served.headers.get('content-disposition')).toMatch(/^attachment;/);
  expect(Buffer.from(await served.arrayBuffer()).equals(docx)).toBe(true);
  await screenshot(page, 'docx-viewer');
  expect(errors).toEqual([]);
});
