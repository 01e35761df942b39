/**
 * A report from the browser: start it in Report mode on the New run page, edit the proposed outline (rename a
 * section and edit its questions, add a section, toggle its research, reorder by dragging and by a button),
 * approve it, watch the per-section progress cards, read the report with its table of contents, and open a
 * citation on its PDF page with the quote marked. The model's outline is scripted (POST /_fake/script), so the
 * test knows the proposal; everything after it is the fake model's own answers.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, screenshot } from './browser';
import { api, baseUrl, ollamaUrl, waitForStatus } from './helpers';
import { setModelLatency } from './stack';

const TOPIC = 'Gebühren und Auslagen nach dem Atomgesetz';

/** The outline the fake model proposes (the OutlineDraft schema of research/report/schemas.py). */
const PROPOSED = {
  title: 'Gebühren und Auslagen nach dem Atomgesetz',
  sections: [
    { title: 'Einleitung', description: 'Worum es geht', research: false, questions: [], corpus_queries: [] },
    {
      title: 'Gebühren für Genehmigungen',
      description: 'Gebühren nach § 21 AtG',
      research: true,
      questions: ['Welche Gebühren werden für Genehmigungen nach dem Atomgesetz erhoben?'],
      corpus_queries: [],
    },
    {
      title: 'Auslagen',
      description: '',
      research: true,
      questions: ['Welche Auslagen werden erstattet?'],
      corpus_queries: [],
    },
    { title: 'Fazit', description: '', research: false, questions: [], corpus_queries: [] },
  ],
};

/** What the user makes of it (see the test): the edited outline in its order. */
const EDITED = [
  { title: 'Einleitung', research: false },
  { title: 'Auslagen der Behörden', research: true },
  { title: 'Gebühren für Genehmigungen', research: true },
  { title: 'Zusammenfassung', research: false },
  { title: 'Fazit', research: false },
];
const EDITED_QUESTION = 'Welche Auslagen der Behörden werden nach der Kostenverordnung erstattet?';
const ADDED_QUESTION = 'Wer trägt die Kosten einer Sachverständigenprüfung?';

let browser: Browser;
let page: Page;
const errors: string[] = [];

async function scriptOutline(): Promise<void> {
  const answer = await fetch(`${ollamaUrl()}/_fake/script`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ response: PROPOSED, schema: 'OutlineDraft', times: 1 }),
  });
  expect(answer.ok, `scripting the outline: ${answer.status}`).toBe(true);
}

/** What the fake model was asked: the bodies of GET /_fake/requests (chat and embedding), not its answers. */
async function prompts(): Promise<string> {
  const answer = await fetch(`${ollamaUrl()}/_fake/requests`);
  expect(answer.ok).toBe(true);
  const requests = (await answer.json()) as { body: unknown }[];
  return JSON.stringify(requests.map((r) => r.body));
}

beforeAll(async () => {
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  await setModelLatency(ollamaUrl(), 100); // sections slow enough to watch them in progress
  await scriptOutline();
});

afterAll(async () => {
  await setModelLatency(ollamaUrl(), 0);
  await browser?.close();
});

const LONG = { timeout: 150_000 };

test('start a report, edit and approve its outline, watch the sections, read the report, open a citation', async () => {
  await page.goto(`${baseUrl()}#/runs/new`);
  await page.getByRole('radio', { name: /^Report/ }).check();
  await page.getByRole('textbox', { name: 'Topic' }).fill(TOPIC);
  await page.getByRole('checkbox', { name: 'laws', exact: true }).check();
  const fields = page.getByTestId('report-fields');
  await fields.getByRole('textbox', { name: 'Guidance (optional)' }).fill('Für Antragsteller, kurz');
  await fields.getByRole('spinbutton', { name: 'Refinement rounds' }).fill('1');
  await page.getByRole('button', { name: 'Start report' }).click();
  await page.waitForURL(/#\/runs\/[0-9a-f-]+$/);
  const runId = new URL(page.url()).hash.split('/').pop() ?? '';
  expect(runId).not.toBe('');

  // the outline editor shows the proposal
  const outline = page.getByTestId('outline-form');
  await outline.waitFor(LONG);
  const titles = outline.getByLabel(/^Title of section \d+$/);
  const values = () => titles.evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
  expect(await values()).toEqual(PROPOSED.sections.map((s) => s.title));
  await expect
    .poll(() => outline.getByRole('checkbox', { name: 'Research section 1 in the documents' }).isChecked())
    .toBe(false);

  // rename section 3 and edit its questions: the one proposed rewritten, one added
  await outline.getByRole('textbox', { name: 'Title of section 3' }).fill('Auslagen der Behörden');
  await outline.getByRole('textbox', { name: 'Question 1 of section 3' }).fill(EDITED_QUESTION);
  await outline.getByRole('button', { name: 'Add a question to section 3' }).click();
  await outline.getByRole('textbox', { name: 'Question 2 of section 3' }).fill(ADDED_QUESTION);
  // add a section, make it a framing section, drag it before the conclusion
  await outline.getByRole('textbox', { name: 'New section' }).fill('Zusammenfassung');
  await outline.getByRole('button', { name: 'Add section' }).click();
  await outline.getByRole('checkbox', { name: 'Research section 5 in the documents' }).uncheck();
  // both handles on screen: a drag that has to scroll to its target never starts
  await outline.getByTestId('outline-drag-4').evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await outline.getByTestId('outline-drag-5').dragTo(outline.getByTestId('outline-drag-4'));
  await expect.poll(values).toEqual(['Einleitung', 'Gebühren für Genehmigungen', 'Auslagen der Behörden', 'Zusammenfassung', 'Fazit']);
  // and put the renamed section before the fees
  await outline.getByRole('button', { name: 'Move section 3 up' }).click();
  await expect.poll(values).toEqual(EDITED.map((s) => s.title));
  await screenshot(page, 'report-outline');
  await outline.getByRole('button', { name: 'Approve outline' }).click();

  // per-section progress: cards appear while sections are still being researched or written
  const cards = page.getByTestId('section-progress');
  await page.locator('[data-testid="section-progress"][aria-current="step"]').first().waitFor(LONG);
  expect(await page.getByTestId('run-mode').innerText()).toMatch(/^Report/);
  await screenshot(page, 'report-progress');

  const report = page.getByTestId('report');
  await report.waitFor(LONG);
  const detail = await waitForStatus(runId, ['done']);
  expect(detail.run.status).toBe('done');
  await expect.poll(() => cards.count()).toBe(EDITED.length);
  expect(await cards.locator('.task-title').allInnerTexts()).toEqual(EDITED.map((s) => s.title));
  expect(await page.locator('[data-testid="section-progress"][aria-current="step"]').count()).toBe(0);

  // the server used the edited outline: its sections, research flags, and the edited questions
  const result = await api<{ sections: { id: string; title: string; research: boolean }[] }>(`api/runs/${runId}/report`);
  expect(result.sections.map((s) => ({ title: s.title, research: s.research }))).toEqual(EDITED);
  const asked = await prompts();
  expect(asked).toContain(EDITED_QUESTION);
  expect(asked).toContain(ADDED_QUESTION);
  expect(asked).not.toContain('Welche Auslagen werden erstattet?');

  // the table of contents lists the sections and moves to one without leaving the run page
  const contents = report.getByTestId('report-contents');
  expect(await contents.getByRole('link').allInnerTexts()).toEqual(EDITED.map((s) => s.title));
  const before = page.url();
  await contents.getByRole('link', { name: 'Auslagen der Behörden' }).click();
  const target = report.locator(`#report-section-${result.sections[1]!.id}`);
  await expect.poll(() => target.evaluate((el) => el === document.activeElement)).toBe(true);
  expect(page.url()).toBe(before);
  await expect.poll(() => target.isVisible()).toBe(true);
  await screenshot(page, 'report-report');

  // a citation opens the PDF page with the quote marked in its text layer
  await report.getByRole('button', { name: /^Citation \d+/ }).first().click();
  const viewer = page.getByTestId('citation-viewer');
  await viewer.waitFor();
  const pdf = viewer.getByTestId('pdf-page');
  await expect.poll(() => pdf.getAttribute('data-status'), LONG).toBe('ready');
  await expect.poll(async () => Number(await pdf.getAttribute('data-marks')), LONG).toBeGreaterThan(0);
  await expect.poll(() => pdf.locator('mark.highlight').count()).toBeGreaterThan(0);
  expect(await viewer.getByTestId('viewer-location').innerText()).toMatch(/AtKostV|BAStrlSchG/);
  await screenshot(page, 'report-citation');
  expect(errors).toEqual([]);
});
