/**
 * An interactive run from the browser: start it, answer the clarification, edit and approve the plan, watch the
 * progress and the report's sections as they are written (a draft), read the checked report that replaces
 * them with its checks panel, and open a citation on its PDF page with the quote marked; a second tab on the
 * same run follows every step from the events alone.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, screenshot } from './browser';
import { type RunDetail, api, baseUrl, ollamaUrl, phases, startRun } from './helpers';
import { setModelLatency } from './stack';

let browser: Browser;
let page: Page;
let other: Page;
const errors: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  await setModelLatency(ollamaUrl(), 20); // progress to watch
});

afterAll(async () => {
  await setModelLatency(ollamaUrl(), 0);
  await browser?.close();
});

const LONG = { timeout: 150_000 };

/** What the page showed of the draft sections, recorded by a MutationObserver as the DOM changed (so a draft
 * shown for a moment is seen too): the first moment a draft was on the page, and whether the report was. */
interface DraftSeen {
  sections: string[];
  text: string;
  report: boolean;
}

async function watchDrafts(tab: Page): Promise<void> {
  await tab.evaluate(() => {
    const record = window as unknown as { draftsSeen: DraftSeen | null };
    record.draftsSeen = null;
    const observer = new MutationObserver(() => {
      const draft = document.querySelector('[data-testid="draft-report"]');
      if (!draft || record.draftsSeen) return;
      record.draftsSeen = {
        sections: Array.from(draft.querySelectorAll('[data-testid="draft-section"] h3')).map((h) => h.textContent ?? ''),
        text: draft.textContent ?? '',
        report: document.querySelector('[data-testid="report"]') !== null,
      };
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  });
}

async function draftsSeen(tab: Page): Promise<DraftSeen | null> {
  return tab.evaluate(() => (window as unknown as { draftsSeen: DraftSeen | null }).draftsSeen);
}

interface ReportResult {
  checks: { passed: boolean; problems: unknown[] } | null;
  evidence: { source: number | null }[];
  llm_tokens: Record<string, { prompt: number; output: number }>;
  sections: unknown[] | null;
}

/** Answers clarification rounds until the plan is proposed ("enough" after the first answer). */
async function clarify(tab: Page): Promise<void> {
  const panel = tab.getByTestId('clarification');
  await panel.getByLabel('Answer').fill('Nur die Gebühren für Genehmigungen, keine Auslagen.');
  await panel.getByRole('button', { name: 'Send answer' }).click();
  const plan = tab.getByTestId('plan-form');
  const nextRound = panel.getByRole('heading', { name: 'Round 2' });
  await plan.or(nextRound).first().waitFor(LONG);
  if (!(await plan.isVisible())) await panel.getByRole('button', { name: 'Enough, start the research' }).click();
  await plan.waitFor(LONG);
}

test('start, clarify, edit and approve the plan, watch progress, read the report, open a citation', async () => {
  const runId = await startRun(page, 'interactive');
  other = await browser.context.newPage();
  await other.goto(`${baseUrl()}#/runs/${runId}`);

  const clarification = page.getByTestId('clarification');
  await clarification.getByLabel('Answer').waitFor(LONG);
  await other.getByTestId('clarification').getByLabel('Answer').waitFor(LONG);
  const questions = await clarification.locator('.questions').innerText();
  expect(questions.length).toBeGreaterThan(0);
  expect(await other.getByTestId('clarification').locator('.questions').innerText()).toBe(questions);
  await screenshot(page, 'clarification');

  await clarify(page);
  await other.getByTestId('plan-form').waitFor(LONG); // the second tab sees the plan without a reload

  const plan = page.getByTestId('plan-form');
  const titles = plan.getByLabel(/^Title of task \d+$/);
  const proposed = await titles.count();
  expect(proposed).toBeGreaterThan(0);
  await titles.first().fill('Gebühren für Genehmigungen nach § 7 AtG');
  await plan.getByLabel('New task').fill('Auslagen der Behörden');
  await plan.getByRole('button', { name: 'Add task' }).click();
  await expect.poll(() => titles.count()).toBe(proposed + 1);
  await plan.getByRole('button', { name: `Move task ${proposed + 1} up` }).click();
  if (proposed > 1) await plan.getByRole('button', { name: `Remove task ${proposed + 1}` }).click();
  const edited = await titles.evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
  expect(edited[0]).toBe('Gebühren für Genehmigungen nach § 7 AtG');
  expect(edited).toContain('Auslagen der Behörden');
  await screenshot(page, 'plan');
  await watchDrafts(page);
  await setModelLatency(ollamaUrl(), 700); // the checks after the sections are written take a while: drafts to see
  await plan.getByRole('button', { name: 'Approve plan' }).click();

  // progress: the task list of the approved (edited) plan, live in both tabs
  const todo = page.getByTestId('run-todo');
  await todo.waitFor(LONG);
  await other.getByTestId('run-todo').waitFor(LONG);
  for (const title of edited) await todo.getByText(title, { exact: false }).first().waitFor();
  const detail = await api<RunDetail>(`api/runs/${runId}`);
  expect(detail.todo.map((task) => task.title)).toEqual(edited);
  await screenshot(page, 'progress');

  // the sections as the model writes them, marked as a draft, before the checked report
  const draft = page.getByTestId('draft-report');
  await draft.or(page.getByTestId('report')).first().waitFor(LONG);
  if (await draft.isVisible()) await screenshot(page, 'draft');

  const report = page.getByTestId('report');
  await report.waitFor(LONG);
  await setModelLatency(ollamaUrl(), 20);
  await other.getByTestId('report').waitFor(LONG);
  const seen = await draftsSeen(page);
  expect(seen, 'no draft section was shown before the report').not.toBeNull();
  expect(seen!.report).toBe(false);
  expect(seen!.sections.length).toBeGreaterThan(0);
  expect(seen!.text).toContain('Being written; the checked report follows.');
  // a sentence's checked sources are [n] links, others say they are being checked; or it is still being written
  expect(seen!.text).toMatch(/\[\d+\]|checking sources|no source|being written/);
  expect(await draft.count()).toBe(0); // the checked report replaced it
  await screenshot(page, 'report');

  // the checks panel: the verdict, what the guards changed, the evidence, the run's tokens
  const result = await api<ReportResult>(`api/runs/${runId}/report`);
  const checks = report.getByTestId('checks');
  await checks.getByRole('heading', { name: /^Checks/ }).waitFor();
  expect(await checks.getAttribute('data-passed')).toBe(String(result.checks?.passed ?? true));
  expect(await checks.getByTestId('guards').isVisible()).toBe(true);
  const total = result.llm_tokens.total!;
  expect(total.prompt).toBeGreaterThan(0);
  expect(await checks.getByTestId('tokens').innerText()).toContain(
    `${total.prompt.toLocaleString('en-GB')} read (prompts), ${total.output.toLocaleString('en-GB')} written (answers)`,
  );
  const evidence = checks.getByTestId('evidence');
  await evidence.locator('summary').click();
  const cited = result.evidence.filter((e) => e.source !== null).length;
  expect(cited).toBeGreaterThan(0);
  expect(await evidence.getByTestId('evidence-cited').locator(':scope > li').count()).toBe(cited);
  expect(await evidence.getByTestId('evidence-uncited').locator(':scope > li').count()).toBe(result.evidence.length - cited);
  await checks.scrollIntoViewIfNeeded();
  await screenshot(page, 'report-checks');
  expect(await phases(other)).toBe(await phases(page));
  expect(await other.getByTestId('run-todo').innerText()).toBe(await todo.innerText());

  // a citation opens the PDF page with the quote marked in its text layer
  await report.getByRole('button', { name: /^Citation \d+/ }).first().click();
  const viewer = page.getByTestId('citation-viewer');
  await viewer.waitFor();
  const pdf = viewer.getByTestId('pdf-page');
  await expect.poll(() => pdf.getAttribute('data-status'), LONG).toBe('ready');
  await expect.poll(async () => Number(await pdf.getAttribute('data-marks')), LONG).toBeGreaterThan(0);
  await expect.poll(() => pdf.locator('mark.highlight').count()).toBeGreaterThan(0);
  expect(await viewer.getByTestId('viewer-location').innerText()).toMatch(/AtKostV|BAStrlSchG/);
  await screenshot(page, 'citation');
  expect(errors).toEqual([]);
});
