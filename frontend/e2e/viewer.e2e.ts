/**
 * The viewer and phones: at 390x844 no page scrolls sideways (home, collections, a collection holding a
 * 120-character file name, new run, the runs list, a finished run in English and German, the viewer open,
 * which is a full-screen dialog there); a search hit opens its page with its passage highlighted, also after
 * a reload; zoom and page turning redraw the PDF page; a step of a citation's reference chain opens its page.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, screenshot } from './browser';
import { api, baseUrl, startRun, waitForStatus } from './helpers';
import { uploadCollection } from './stack';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 860 };
/** 120 characters without a space: a file name as downloaded from a ministry's site. */
const LONG_NAME = 'Kostenverordnung_zum_Atomgesetz_und_zum_Strahlenschutzgesetz_in_der_Fassung_der_Bekanntmachung_vom_17._Dezember_1981.pdf';
const LONG = { timeout: 150_000 };

let browser: Browser;
let page: Page;
let runId = '';
const errors: string[] = [];

interface Source {
  n: number;
  document: string;
  page: number;
  kind?: string;
  chain: { document: string; page: number }[];
}

beforeAll(async () => {
  expect(LONG_NAME).toHaveLength(120);
  await uploadCollection(baseUrl(), 'phone', ['AtKostV.pdf'], { 'AtKostV.pdf': LONG_NAME });
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${baseUrl()}#/runs`);
  runId = await startRun(page, 'quick');
  await waitForStatus(runId, ['done']);
});

afterAll(async () => {
  await browser?.close();
});

/** How far the page reaches past the viewport's right edge (0: it does not scroll sideways), and the text that
 * sticks out furthest (a text node can reach past its element's box: a long word). */
async function overflow(tab: Page): Promise<{ by: number; widest: string[] }> {
  return tab.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    const found: { right: number; what: string }[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const right = range.getBoundingClientRect().right;
      const parent = node.parentElement;
      if (right > window.innerWidth + 1 && parent?.closest('.table, .ref-diagram, .pdf-frame') === null) {
        found.push({ right, what: `${parent.tagName.toLowerCase()}.${parent.className}: ${(node.textContent ?? '').slice(0, 40)}` });
      }
    }
    const widest = found.sort((a, b) => b.right - a.right).slice(0, 5).map((f) => `${f.what} (${Math.round(f.right)})`);
    return { by: root.scrollWidth - window.innerWidth, widest };
  });
}

async function expectNoSidewaysScroll(tab: Page, what: string): Promise<void> {
  const measured = await overflow(tab);
  expect(measured.by, `${what} is wider than the phone: ${measured.widest.join('; ')}`).toBeLessThanOrEqual(0);
}

async function openCitation(tab: Page, n: number): Promise<void> {
  await tab.getByTestId('report').getByRole('button', { name: new RegExp(`^Citation ${n}\\b`) }).first().click();
  await tab.getByTestId('citation-viewer').waitFor();
}

async function pdfReady(tab: Page, drawn: string): Promise<void> {
  const pdf = tab.getByTestId('pdf-page');
  await expect.poll(() => pdf.getAttribute('data-drawn'), LONG).toBe(drawn);
  expect(await pdf.getAttribute('data-status')).toBe('ready');
}

test('at 390 px no page scrolls sideways, and the viewer is a full-screen dialog', async () => {
  await page.setViewportSize(PHONE);
  const pages: [string, string, string][] = [
    ['home', '#/', 'runs-title'],
    ['collections', '#/collections', ''],
    ['a collection with a long file name', '#/collections/phone', 'documents'],
    ['new run', '#/runs/new', ''],
    ['runs list', '#/runs', 'runs-title'],
    ['a finished run', `#/runs/${runId}`, 'report'],
  ];
  for (const [what, hash, testId] of pages) {
    await page.goto(`${baseUrl()}${hash}`);
    await page.locator('main h1').first().waitFor();
    if (testId === 'documents') {
      await page.getByTestId('documents').getByText(LONG_NAME).waitFor();
      await page.getByTestId('registry-editor').getByText(LONG_NAME).first().waitFor();
    }
    if (testId === 'report') await page.getByTestId('report').waitFor(LONG);
    if (testId === 'runs-title') await page.locator(`[data-run-id="${runId}"]`).first().waitFor();
    await expectNoSidewaysScroll(page, what);
  }
  await screenshot(page, 'phone-run');

  // the viewer: over the whole screen, a dialog with its close button, the PDF page fit to the width
  await openCitation(page, 1);
  const viewer = page.getByTestId('citation-viewer');
  expect(await viewer.getAttribute('role')).toBe('dialog');
  const box = await viewer.boundingBox();
  expect(box).toEqual({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
  const pdf = viewer.getByTestId('pdf-page');
  await expect.poll(() => pdf.getAttribute('data-status'), LONG).toBe('ready');
  const canvas = await pdf.locator('canvas').boundingBox();
  expect(canvas?.width ?? 0).toBeGreaterThan(PHONE.width * 0.8);
  expect(canvas?.width ?? 0).toBeLessThanOrEqual(PHONE.width);
  await expectNoSidewaysScroll(page, 'the viewer');
  await screenshot(page, 'phone-viewer');
  await page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'detached' });

  // German: the long compounds of the headings break instead of widening the page
  await page.evaluate(() => localStorage.setItem('rabbithole.language', 'de'));
  for (const hash of [`#/runs/${runId}`, '#/runs/new', '#/collections/phone']) {
    await page.goto(`${baseUrl()}${hash}`);
    await page.reload();
    await page.locator('main h1').first().waitFor();
    if (hash.startsWith('#/runs/') && hash !== '#/runs/new') await page.getByTestId('report').waitFor(LONG);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await expectNoSidewaysScroll(page, `${hash} in German`);
  }
  await page.evaluate(() => localStorage.setItem('rabbithole.language', 'en'));
  await page.reload();
  expect(errors).toEqual([]);
});

test('a search hit opens its page with its passage highlighted, also after a reload', async () => {
  await page.setViewportSize(DESKTOP);
  await page.goto(`${baseUrl()}#/collections/laws`);
  await page.getByLabel('Search the collection').fill('Gebühren Genehmigung');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByTestId('search-results');
  await results.getByRole('listitem').first().waitFor();
  await results.getByRole('listitem').first().getByRole('button').first().click();
  const viewer = page.getByTestId('document-viewer');
  await viewer.waitFor();
  const pdf = viewer.getByTestId('pdf-page');
  const marked = async () => {
    await expect.poll(() => pdf.getAttribute('data-status'), LONG).toBe('ready');
    await expect.poll(async () => Number(await pdf.getAttribute('data-marks')), LONG).toBeGreaterThan(0);
    expect(await pdf.locator('mark.highlight').count()).toBeGreaterThan(0);
    expect(await viewer.getByTestId('page-text').locator('mark.highlight').count()).toBe(1);
  };
  await marked();
  expect(await viewer.getByTestId('viewer-query').innerText()).toContain('Gebühren Genehmigung');
  // the header stays in view: the highlight was scrolled into view inside the page area only
  expect(await viewer.evaluate((el) => el.scrollTop)).toBe(0);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await screenshot(page, 'search-hit');
  expect(new URL(page.url()).hash).toMatch(/hl=\d+-\d+/);
  await page.reload();
  await marked();
  expect(errors).toEqual([]);
});

test('zoom and page turning redraw the PDF page; the whole PDF opens at the page shown', async () => {
  await page.setViewportSize(DESKTOP);
  const viewer = page.getByTestId('document-viewer');
  const pdf = viewer.getByTestId('pdf-page');
  const first = Number(await pdf.getAttribute('data-page'));
  await pdfReady(page, `${first}@1`);
  const fit = (await pdf.locator('canvas').boundingBox())?.width ?? 0;
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await pdfReady(page, `${first}@1.25`);
  expect((await pdf.locator('canvas').boundingBox())?.width ?? 0).toBeCloseTo(fit * 1.25, 0);
  expect(await pdf.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true); // wider: scrolls in its box
  await pdf.focus();
  await page.keyboard.press('-');
  await pdfReady(page, `${first}@1`);
  await page.keyboard.press('-');
  await pdfReady(page, `${first}@0.75`);
  await viewer.getByRole('button', { name: 'Fit to width' }).click();
  await pdfReady(page, `${first}@1`);

  await viewer.getByRole('button', { name: 'Next page' }).click();
  await pdfReady(page, `${first + 1}@1`);
  expect(await viewer.getByTestId('viewer-location').innerText()).toContain(`p. ${first + 1}`);
  expect(await viewer.getByTestId('page-text').textContent()).not.toBe('');
  const whole = viewer.getByRole('link', { name: 'Open the whole PDF' });
  expect(await whole.getAttribute('href')).toMatch(new RegExp(`/pdf#page=${first + 1}$`));
  const served = await fetch(new URL((await whole.getAttribute('href')) ?? '', page.url()));
  expect(served.headers.get('content-type')).toBe('application/pdf');
  expect(served.headers.get('content-disposition')).toMatch(/^inline;/);
  await viewer.getByRole('button', { name: 'Previous page' }).click();
  await pdfReady(page, `${first}@1`);
  expect(errors).toEqual([]);
});

test("a step of a citation's reference chain opens its page", async () => {
  await page.setViewportSize(DESKTOP);
  const report = await api<{ sources: Source[] }>(`api/runs/${runId}/report`);
  const chained = report.sources.find((s) => s.kind !== 'web' && s.chain.length > 1);
  if (!chained) throw new Error('the run cited no passage reached through a reference');
  await page.goto(`${baseUrl()}#/runs/${runId}?cite=${chained.n}`);
  const viewer = page.getByTestId('citation-viewer');
  await viewer.waitFor(LONG);
  const steps = viewer.getByTestId('reference-chain').getByRole('button');
  expect(await steps.count()).toBe(chained.chain.length);
  const [seed] = chained.chain;
  if (!seed) throw new Error('a chain without steps');
  await steps.first().click();
  await pdfReady(page, `${seed.page}@1`);
  expect(await viewer.getByTestId('viewer-location').innerText()).toMatch(new RegExp(`^${seed.document}, p. ${seed.page}\\b`));
  expect(await steps.first().getAttribute('aria-current')).toBe('location');
  await steps.last().click();
  await pdfReady(page, `${chained.page}@1`);
  await expect.poll(async () => Number(await viewer.getByTestId('pdf-page').getAttribute('data-marks'))).toBeGreaterThan(0);
  await page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'detached' });

  // a place of the references followed (on the finished run's other tab, collapsed) opens its page too
  await page.getByRole('tab', { name: 'How it was researched' }).click();
  await page.getByTestId('run-references').locator(':scope > summary').click();
  const open = page.getByTestId('reference-graph').getByRole('button', { name: /^Open .* in the viewer$/ }).first();
  await open.click();
  const place = page.getByTestId('document-viewer');
  await place.waitFor();
  await expect.poll(() => place.getByTestId('pdf-page').getAttribute('data-status'), LONG).toBe('ready');
  expect(await place.getByRole('heading', { level: 2 }).first().innerText()).not.toBe('');
  expect(errors).toEqual([]);
});
