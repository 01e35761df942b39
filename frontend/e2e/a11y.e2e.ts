/**
 * Accessibility: axe-core (evaluated in the page over the DevTools protocol, so the server's
 * Content-Security-Policy stays in force) finds no serious or critical violation on any page of the app, at
 * 1366x900 and at 390x844: the runs list (home), collections, a collection, New run, an interactive run at
 * its clarification and at its plan, the finished run with its report, and the citation viewer open. Every
 * page is checked before the test fails, and the failure prints each violation with its nodes.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser } from './browser';
import { baseUrl, ollamaUrl, startRun } from './helpers';
import { LAWS, setModelLatency } from './stack';

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary: string }[];
}

const VIEWPORTS = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const SEVERE = new Set(['serious', 'critical']);
const LONG = { timeout: 150_000 };

let browser: Browser;
let page: Page;
let axeSource: string;
const errors: string[] = [];
/** "<page> at <viewport>: <rule> (<impact>) ..." for every serious or critical violation found. */
const found: string[] = [];

beforeAll(async () => {
  axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
});

afterAll(async () => {
  await setModelLatency(ollamaUrl(), 0);
  await browser?.close();
});

/** axe-core's serious and critical violations of the page as it is now. */
async function severeViolations(): Promise<Violation[]> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Violation[] }> } })
      .axe;
    const results = await axe.run(document);
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.map(String), failureSummary: n.failureSummary })),
    }));
  });
  return violations.filter((v) => v.impact !== null && SEVERE.has(v.impact));
}

/** Checks the page in its current state at both sizes; records what axe finds. */
async function check(name: string): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    for (const v of await severeViolations()) {
      const nodes = v.nodes.map((n) => `    ${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`);
      found.push(`${name} at ${viewport.width}x${viewport.height}: ${v.id} (${v.impact}) ${v.help}\n${nodes.join('\n')}`);
    }
  }
}

async function visit(hash: string, heading: RegExp): Promise<void> {
  await page.goto(`${baseUrl()}#${hash}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

test('no serious or critical violation on the lists and forms', async () => {
  found.length = 0;
  await visit('/', /Research runs/);
  await check('home (runs list)');
  await visit('/collections', /Collections/);
  await check('collections');
  await visit(`/collections/${LAWS}`, new RegExp(LAWS));
  await page.getByTestId('documents').getByText('AtKostV.pdf').first().waitFor();
  await check('a collection');
  await visit('/runs/new', /New research run/);
  await check('new run');
  expect(found, found.join('\n\n')).toEqual([]);
});

test('no serious or critical violation on a run: clarification, plan, report, citation viewer', async () => {
  found.length = 0;
  await page.setViewportSize({ width: 1366, height: 900 });
  await setModelLatency(ollamaUrl(), 20);
  await visit('/runs', /Research runs/);
  await startRun(page, 'interactive');
  const clarification = page.getByTestId('clarification');
  await clarification.getByLabel('Answer').waitFor(LONG);
  await check('a run at its clarification');

  await clarification.getByLabel('Answer').fill('Nur die Gebühren für Genehmigungen, keine Auslagen.');
  await clarification.getByRole('button', { name: 'Send answer' }).click();
  const plan = page.getByTestId('plan-form');
  await plan.or(clarification.getByRole('heading', { name: 'Round 2' })).first().waitFor(LONG);
  if (!(await plan.isVisible())) {
    await clarification.getByRole('button', { name: 'Enough, start the research' }).click();
  }
  await plan.waitFor(LONG);
  await check('a run at its plan');

  await page.setViewportSize({ width: 1366, height: 900 });
  await plan.getByRole('button', { name: 'Approve plan' }).click();
  const report = page.getByTestId('report');
  await report.waitFor(LONG);
  await check('a finished run with its report');

  await page.setViewportSize({ width: 1366, height: 900 });
  await report.getByRole('button', { name: /^Citation \d+/ }).first().click();
  const pdf = page.getByTestId('citation-viewer').getByTestId('pdf-page');
  await expect.poll(() => pdf.getAttribute('data-status'), LONG).toBe('ready');
  await check('the citation viewer');
  expect(found, found.join('\n\n')).toEqual([]);
  expect(errors).toEqual([]);
});
