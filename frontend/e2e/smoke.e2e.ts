/** The built app loads from the real server in Chromium: its script runs, it reaches the API, no errors. */
import { afterAll, beforeAll, expect, inject, test } from 'vitest';

import { type Browser, launchBrowser, openPage, screenshot } from './browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser('en-US');
});

afterAll(async () => {
  await browser?.close();
});

test('the app loads at / and shows the runs page', async () => {
  const apiCalls: string[] = [];
  const { page, errors } = await openPage(browser, inject('baseUrl'));
  page.on('request', (request) => apiCalls.push(new URL(request.url()).pathname));
  await page.getByRole('navigation').waitFor();
  await page.waitForFunction(() => window.location.hash.startsWith('#/runs'));
  await page.reload();
  await page.getByRole('navigation').waitFor();
  await page.waitForLoadState('networkidle');
  expect(apiCalls.some((path) => path.startsWith('/api/'))).toBe(true);
  expect(errors).toEqual([]);
  await screenshot(page, 'home');
});
