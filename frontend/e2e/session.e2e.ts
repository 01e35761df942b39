/** A run survives what users do to tabs: reload in the middle of it, cancel it; and the language switch. */
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, openPage, screenshot } from './browser';
import { api, baseUrl, ollamaUrl, type RunDetail, startRun, waitForStatus } from './helpers';
import { setModelLatency } from './stack';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser('en-US');
});

afterAll(async () => {
  await setModelLatency(ollamaUrl(), 0);
  await browser?.close();
});

test('a reload in the middle of a run recovers the page and follows the run to its report', async () => {
  await setModelLatency(ollamaUrl(), 300);
  const { page, errors } = await openPage(browser, baseUrl());
  const runId = await startRun(page, 'quick');
  await page.getByTestId('run-todo').waitFor({ timeout: 120_000 });
  await page.reload();
  // mid-run: the server still runs it, and the reloaded page shows its plan and phases from the replayed events
  const during = await api<RunDetail>(`api/runs/${runId}`);
  expect(during.run.status).toBe('running');
  await page.getByTestId('run-phase').getByText('Research').waitFor();
  for (const task of during.todo) await page.getByTestId('run-todo').getByText(task.title).first().waitFor();
  await screenshot(page, 'reloaded');
  await setModelLatency(ollamaUrl(), 0);
  await page.getByTestId('report').waitFor({ timeout: 150_000 });
  const detail = await api<RunDetail>(`api/runs/${runId}`);
  expect(detail.run.status).toBe('done');
  // every task once, in its final state, as the server has it
  const todo = await page.getByTestId('run-todo').innerText();
  for (const task of detail.todo) expect(todo.split(task.title).length - 1).toBe(1);
  expect(errors).toEqual([]);
});

test('cancel a running run', async () => {
  await setModelLatency(ollamaUrl(), 400);
  const { page, errors } = await openPage(browser, baseUrl());
  const runId = await startRun(page, 'quick');
  await waitForStatus(runId, ['running']);
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.locator('.run-header').getByText('cancelled', { exact: true }).waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Retry run' }).waitFor();
  expect((await waitForStatus(runId, ['cancelled'], 60_000)).run.status).toBe('cancelled');
  await screenshot(page, 'cancelled');
  await setModelLatency(ollamaUrl(), 0);
  await page.goto(`${baseUrl()}#/runs`);
  await page.getByTestId('runs-list').locator('tbody').getByText('cancelled').first().waitFor();
  await screenshot(page, 'runs-list');
  expect(errors).toEqual([]);
});

test('the language follows the browser and can be switched', async () => {
  const german = await launchBrowser('de-DE');
  try {
    const { page } = await openPage(german, baseUrl());
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Sammlungen' }).waitFor();
    await page.getByLabel('Sprache').selectOption({ label: 'English' });
    await nav.getByRole('link', { name: 'Collections' }).waitFor();
    await page.getByLabel('Language').selectOption({ label: 'Deutsch' });
    await nav.getByRole('link', { name: 'Sammlungen' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await page.goto(`${baseUrl()}#/runs/new`);
    await page.getByRole('button', { name: 'Recherche starten' }).waitFor();
    await screenshot(page, 'new-run-de');
  } finally {
    await german.close();
  }
  const { page } = await openPage(browser, `${baseUrl()}#/runs/new`);
  await page.getByRole('button', { name: 'Start research' }).waitFor();
  await screenshot(page, 'new-run');
});
