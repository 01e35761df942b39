/**
 * Clarification as a conversation, in Chromium against the real server and the fake Ollama (500 ms a call):
 * the user's answer appears as the user's turn and the focus stays in the answer field; while the next round
 * is prepared the chat shows what is happening (the documents searched query by query, the passages read)
 * before the next questions appear; "Enough, start the research" leaves a turn; a reload shows the same chat.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { type Browser, launchBrowser, screenshot } from './browser';
import { baseUrl, ollamaUrl, startRun } from './helpers';
import { setModelLatency } from './stack';

let browser: Browser;
let page: Page;
const errors: string[] = [];
const LONG = { timeout: 150_000 };
const ANSWER = 'Nur die Gebühren für Genehmigungen, keine Auslagen.';

/** The model's analysis of rounds 1 and 2: never converged, so a second round is asked. */
const ANALYSIS = {
  understanding: 'Gebühren für Genehmigungen nach dem Atomgesetz.',
  coverage: 0.4,
  gaps: ['Auslagen', 'Gebührenhöhe', 'Ermäßigungen'],
  questions: ['Geht es um Genehmigungen nach § 7 AtG?', 'Sollen Auslagen mit betrachtet werden?'],
};

async function scriptAnalysis(times: number): Promise<void> {
  const answer = await fetch(`${ollamaUrl()}/_fake/script`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ response: ANALYSIS, schema: 'ClarifyAnalysis', times }),
  });
  if (!answer.ok) throw new Error(`fake Ollama refused the script: ${answer.status}`);
}

beforeAll(async () => {
  browser = await launchBrowser('en-US');
  page = await browser.context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  await scriptAnalysis(2);
  await setModelLatency(ollamaUrl(), 500);
});

afterAll(async () => {
  await setModelLatency(ollamaUrl(), 0);
  await browser?.close();
});

interface ActivitySeen {
  text: string;
  /** Whether the next round's questions were on the page already. */
  round2: boolean;
}

/** Records every text the chat's activity turn showed, as the DOM changed (a step shown for a moment too). */
async function watchActivity(tab: Page): Promise<void> {
  await tab.evaluate(() => {
    const record = window as unknown as { activitySeen: ActivitySeen[] };
    record.activitySeen = [];
    const observer = new MutationObserver(() => {
      const activity = document.querySelector('[data-testid="clarify-activity"]');
      const text = activity?.textContent?.trim() ?? '';
      if (!text || record.activitySeen.some((seen) => seen.text === text)) return;
      const headings = Array.from(document.querySelectorAll('[data-testid="clarification"] h3'));
      record.activitySeen.push({ text, round2: headings.some((h) => h.textContent === 'Round 2') });
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  });
}

/** Each turn of the chat: who speaks, and what it shows. */
/** Opens the finished clarification, which the run page keeps collapsed once the run has moved on. */
async function showPastChat(tab: Page): Promise<void> {
  const history = tab.getByTestId('run-clarification-history');
  await history.waitFor();
  if ((await history.getAttribute('open')) === null) await history.locator(':scope > summary').click();
}

async function chat(tab: Page): Promise<{ speaker: string | null; text: string }[]> {
  return tab
    .getByTestId('clarification')
    .locator('[data-testid="clarify-turn"]')
    .evaluateAll((turns) =>
      turns.map((turn) => ({ speaker: turn.getAttribute('data-speaker'), text: (turn as HTMLElement).innerText })),
    );
}

test('the answers are turns of a chat, activity shows before the next questions, and a reload shows the same chat', async () => {
  const runId = await startRun(page, 'interactive');
  const panel = page.getByTestId('clarification');
  const field = panel.getByRole('textbox', { name: 'Answer' });
  await field.waitFor(LONG);
  await panel.getByRole('heading', { name: 'Round 1' }).waitFor();
  await watchActivity(page);

  await field.fill(ANSWER);
  await field.press('Enter');
  const mine = panel.locator('[data-testid="clarify-turn"][data-speaker="user"]');
  await mine.filter({ hasText: ANSWER }).waitFor();
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('clarify-answer');
  expect(await field.inputValue()).toBe('');

  await panel.getByRole('heading', { name: 'Round 2' }).waitFor(LONG);
  const seen = await page.evaluate(() => (window as unknown as { activitySeen: ActivitySeen[] }).activitySeen);
  const searching = seen.filter((s) => /Searching your documents: \d+ of \d+ queries, passages found: \d+/.test(s.text));
  expect(searching.length, JSON.stringify(seen)).toBeGreaterThan(0);
  expect(searching.every((s) => !s.round2)).toBe(true);
  expect(seen.some((s) => s.text.includes('Reading') && !s.round2), JSON.stringify(seen)).toBe(true);
  expect(await panel.getByTestId('clarify-activity').count()).toBe(0); // the questions replaced it
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('clarify-answer');
  await screenshot(page, 'clarification-chat');

  await panel.getByRole('button', { name: 'Enough, start the research' }).click();
  await mine.filter({ hasText: 'Enough, start the research.' }).waitFor();
  await page.getByTestId('plan-form').waitFor(LONG);
  await showPastChat(page); // past the clarification, the chat is collapsed under the plan
  const before = await chat(page);
  expect(before.map((turn) => turn.speaker)).toEqual(['assistant', 'user', 'assistant', 'user']);
  expect(before[1]!.text).toContain(ANSWER);
  expect(before[3]!.text).toContain('Enough, start the research.');

  await page.reload();
  await page.getByTestId('plan-form').waitFor(LONG);
  await showPastChat(page);
  await expect.poll(() => chat(page), LONG).toEqual(before);

  const cancelled = await fetch(`${baseUrl()}api/runs/${runId}/cancel`, { method: 'POST' });
  expect(cancelled.status).toBe(200);
  expect(errors).toEqual([]);
});
