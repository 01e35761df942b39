/**
 * The run page as a person meets it (issue 26): a clarification round counts its LLM calls and takes the
 * focus, the plan form takes it next; a run cancelled while it digs shows no phase or task still running,
 * live and reopened later; a finished run opens on its report (above the fold at 1366x900, the first tab
 * stops after the header reach it), and Escape in the citation viewer gives the focus back to its [n].
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser } from './browser';
import { ollamaUrl, phases, startRun, waitForStatus } from './helpers';
import { setModelLatency } from './stack';

let browser: Browser;
let page: Page;
const errors: string[] = [];
const LONG = { timeout: 150_000 };

beforeAll(async () => {
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1366, height: 900 });
  page.on('pageerror', (error) => errors.push(error.message));
});

afterAll(async () => {
  await setModelLatency(ollamaUrl(), 0);
  await browser?.close();
});

/** The accessible name (or text) of the focused element, and whether it lies in ``selector``. */
async function focused(tab: Page, selector = 'body'): Promise<{ name: string; inside: boolean }> {
  return tab.evaluate((within) => {
    const el = document.activeElement;
    const label = el?.getAttribute('aria-label') ?? (el?.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null);
    return { name: (label ?? el?.textContent ?? '').trim(), inside: el?.closest(within) !== null };
  }, selector);
}

/** No phase and no task of the page says it is running, and none is marked current. */
async function expectNothingRunning(tab: Page): Promise<void> {
  const timeline = await phases(tab);
  expect(timeline).not.toMatch(/running|waiting for you/);
  expect(timeline).toMatch(/cancelled/);
  const todo = tab.getByTestId('run-todo');
  expect(await todo.innerText()).not.toMatch(/running/);
  expect(await todo.locator('progress').count()).toBe(0);
  expect(await tab.locator('[data-testid="run-phase"] [aria-current], [data-testid="run-todo"] [aria-current]').count()).toBe(0);
}

test('clarification counts its LLM calls and takes the focus, then the plan; a cancelled run stops everywhere', async () => {
  await setModelLatency(ollamaUrl(), 20);
  const runId = await startRun(page, 'interactive');
  const answer = page.getByTestId('clarification').getByLabel('Answer');
  await answer.waitFor(LONG);
  await expect.poll(() => focused(page).then((f) => f.name)).toBe('Answer');
  // while the run waits for the answer, the first round's calls are counted
  await expect.poll(async () => Number((await page.getByTestId('run-llm-calls').innerText()).replace(/\D/g, '')), LONG).toBeGreaterThan(0);
  expect(await phases(page)).toMatch(/Clarify\s*waiting for you/);

  await page.getByTestId('clarification').getByRole('button', { name: 'Enough, start the research' }).click();
  const plan = page.getByTestId('plan-form');
  await plan.waitFor(LONG);
  await expect.poll(() => focused(page).then((f) => f.name)).toBe('Research plan');

  await setModelLatency(ollamaUrl(), 600); // the tasks dig long enough to be cancelled
  await plan.getByRole('button', { name: 'Approve plan' }).click();
  const todo = page.getByTestId('run-todo');
  await todo.locator('.task-running').first().waitFor(LONG);
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await waitForStatus(runId, ['cancelled']);
  await expect.poll(() => phases(page), LONG).toMatch(/Research\s*cancelled/);
  await expectNothingRunning(page);

  // reopened later: the events replayed from the log say the same
  await setModelLatency(ollamaUrl(), 0);
  await page.reload();
  await page.getByTestId('run-todo').waitFor(LONG);
  await expect.poll(() => phases(page), LONG).toMatch(/Research\s*cancelled/);
  await expectNothingRunning(page);
  expect(errors).toEqual([]);
});

test('a finished run opens on its report; Escape in the viewer returns the focus to the [n]', async () => {
  await setModelLatency(ollamaUrl(), 0);
  const runId = await startRun(page, 'quick');
  await waitForStatus(runId, ['done']);
  await page.reload(); // opened as a finished run
  const report = page.getByTestId('report');
  await report.waitFor(LONG);
  const heading = report.getByRole('heading').first();
  await heading.waitFor({ state: 'visible' });
  const box = await heading.boundingBox();
  expect(box, 'the report has no visible heading').not.toBeNull();
  expect(box!.y + box!.height).toBeLessThan(900); // above the fold
  expect(await page.getByRole('tab', { name: 'Report' }).getAttribute('aria-selected')).toBe('true');

  // from the page's start, every tab stop before the report is in a header (the app's, the run's)
  await page.evaluate(() => {
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
  });
  const before: string[] = [];
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if ((await focused(page, '[data-testid="report"]')).inside) break;
    const stop = await focused(page, 'header, .skip-link, [role="tablist"]');
    expect(stop.inside, `tab stop "${stop.name}" lies before the report outside the header`).toBe(true);
    before.push(stop.name);
  }
  expect((await focused(page, '[data-testid="report"]')).inside).toBe(true);
  expect(before).toContain('Report'); // the tab, the last stop before the report
  expect(before.at(-1)).toBe('Report');

  // the way there is one click away
  await page.getByRole('tab', { name: 'How it was researched' }).click();
  await page.getByTestId('run-todo').waitFor();
  expect(await report.isVisible()).toBe(false);
  await page.getByRole('tab', { name: 'Report' }).click();

  const cite = report.getByRole('button', { name: /^Citation \d+/ }).first();
  const name = await cite.getAttribute('aria-label');
  await cite.focus();
  await page.keyboard.press('Enter');
  const viewer = page.getByTestId('citation-viewer');
  await viewer.waitFor();
  await expect.poll(() => focused(page, '[data-testid="citation-viewer"]').then((f) => f.inside)).toBe(true);
  await page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'detached' });
  await expect.poll(() => focused(page).then((f) => f.name)).toBe(name);
  expect(errors).toEqual([]);
});
