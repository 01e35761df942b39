/**
 * The report streaming in (issue 26, point 3): a quick run with the fake model answering after 300 ms and
 * writing each section's answer token by token (a `slow` fault on the SectionDraft schema). The section's text
 * appears in the page while the run is still going, marked as the model's draft; a citation the run checked is
 * a [n] link in it that opens the citation viewer at its page with the quote marked; the checked report then
 * replaces the draft.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, screenshot } from './browser';
import { type RunDetail, api, ollamaUrl, startRun } from './helpers';
import { setModelLatency } from './stack';

let browser: Browser;
let page: Page;
const errors: string[] = [];
const LONG = { timeout: 150_000 };

async function fake(path: string, body: unknown): Promise<void> {
  const answer = await fetch(`${ollamaUrl()}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.ok, `${path}: ${answer.status}`).toBe(true);
}

beforeAll(async () => {
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  await setModelLatency(ollamaUrl(), 300);
  // each section's answer arrives token by token (40 ms apart), as a model writes it
  await fake('/_fake/faults', { kind: 'slow', delay_ms: 40, schema: 'SectionDraft', times: null });
});

afterAll(async () => {
  await fake('/_fake/reset', {});
  await setModelLatency(ollamaUrl(), 0);
  await browser?.close();
});

test('the report streams into the page before the run is done, and a checked citation in it opens the viewer', async () => {
  const runId = await startRun(page, 'quick');

  const text = page.getByTestId('draft-text').first();
  await text.waitFor(LONG);
  const [detail, reported] = await Promise.all([api<RunDetail>(`api/runs/${runId}`), page.getByTestId('report').count()]);
  expect(detail.run.status).toBe('running');
  expect(reported).toBe(0);
  const draft = page.getByTestId('draft-report');
  expect(await draft.innerText()).toContain('Being written; the checked report follows.');
  await screenshot(page, 'draft-streaming');

  // a citation the run checked is a link in the draft: it opens its page with the quote marked
  const cite = draft.getByTestId('draft-cite').first();
  await cite.waitFor(LONG);
  expect(await cite.innerText()).toMatch(/^\[\d+\]$/);
  await cite.click();
  const viewer = page.getByTestId('citation-viewer');
  await viewer.waitFor();
  expect(page.url()).toMatch(/[?&]evidence=t\d+-/);
  expect(await viewer.getByTestId('viewer-location').innerText()).toMatch(/(AtKostV|BAStrlSchG)\.pdf, p\. \d+/);
  const pdf = viewer.getByTestId('pdf-page');
  await expect.poll(() => pdf.getAttribute('data-status'), LONG).toBe('ready');
  await expect.poll(async () => Number(await pdf.getAttribute('data-marks')), LONG).toBeGreaterThan(0);
  await screenshot(page, 'draft-citation');

  // the checked report replaces the draft
  await page.getByTestId('report').waitFor(LONG);
  expect(await page.getByTestId('draft-report').count()).toBe(0);
  expect(await page.getByTestId('draft-text').count()).toBe(0);
  expect(errors).toEqual([]);
});
