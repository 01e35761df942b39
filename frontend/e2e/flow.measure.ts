/**
 * `make bench` (benchmarks/bench_web.py) runs this with measure.config.ts: what a person waits for, in
 * Chromium against the e2e stack with the fake Ollama at 300 ms per call.
 *
 * - First load: the app opened cold (a fresh profile) at its New run page; the bytes the browser transferred
 *   for the app's own files (the navigation and resource timing entries: transferSize, encodedBodySize,
 *   decodedBodySize) and the Content-Encoding each came with.
 * - A quick run started from that page: from the click on "Start research" (the form's submit, stamped in
 *   the page) to the first phase shown in the run page's timeline (current or done), to the first streamed
 *   report text (`[data-testid="draft-text"]` with text) and to the finished report (`[data-testid="report"]`).
 *   A moment never seen is written as null, never estimated. Between them: the run page's URL (the server
 *   created the run, the run page rendered) and the first phase event on the run's stream.
 *
 * Writes JSON to $RABBITHOLE_WEB_BENCH_DIR/flow.json. Timings are never asserted.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';

import { type Browser, launchBrowser } from './browser';
import { startRun, waitForStatus } from './helpers';
import { setModelLatency } from './stack';

interface Moments {
  submitted: number | null;
  /** The run page's URL (the server created the run). */
  routed: number | null;
  /** The first phase event on the run's stream. */
  firstPhaseEvent: number | null;
  progress: number | null;
  draftText: number | null;
  report: number | null;
}

declare global {
  interface Window {
    __rhMoments: Moments;
  }
}

/** In the page before its scripts: the first moment (performance.now()) each thing is in the DOM. */
function watchMoments(): void {
  const moments: Moments = {
    submitted: null,
    routed: null,
    firstPhaseEvent: null,
    progress: null,
    draftText: null,
    report: null,
  };
  window.__rhMoments = moments;
  const Native = window.EventSource;
  class Stamped extends Native {
    constructor(url: string | URL, init?: EventSourceInit) {
      super(url, init);
      if (!/\/api\/runs\/(?!events)[^/]+\/events/.test(String(url))) return;
      this.addEventListener('phase', () => {
        if (moments.firstPhaseEvent === null && moments.submitted !== null) moments.firstPhaseEvent = performance.now();
      });
    }
  }
  window.EventSource = Stamped as typeof EventSource;
  document.addEventListener(
    'submit',
    () => {
      if (moments.submitted === null) moments.submitted = performance.now();
    },
    true,
  );
  const look = () => {
    if (moments.submitted === null) return;
    const now = performance.now();
    // The router changes the URL with pushState (no hashchange): seen with the run page's first render.
    if (moments.routed === null && /^#\/runs\/[0-9a-f-]+$/.test(location.hash)) moments.routed = now;
    if (
      moments.progress === null &&
      document.querySelector('[data-testid="run-phase"] [aria-current="step"], [data-testid="run-phase"] .phase-done')
    )
      moments.progress = now;
    const draft = document.querySelector('[data-testid="draft-text"]');
    if (moments.draftText === null && draft !== null && (draft.textContent ?? '').trim() !== '') moments.draftText = now;
    if (moments.report === null && document.querySelector('[data-testid="report"]')) moments.report = now;
  };
  const observe = () =>
    new MutationObserver(look).observe(document.documentElement, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  if (document.documentElement) observe();
  else document.addEventListener('DOMContentLoaded', observe);
}

interface Transfer {
  url: string;
  kind: string;
  transferred: number;
  encoded: number;
  decoded: number;
  encoding: string | null;
}

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser('en-US');
  await browser.context.addInitScript(watchMoments);
});

afterAll(async () => {
  await browser?.close();
});

test('first load, and start research -> first progress, first streamed text, finished report', async () => {
  const baseUrl = inject('baseUrl');
  const encodings = new Map<string, string | null>();
  const page = await browser.context.newPage();
  page.on('response', (response) => {
    encodings.set(response.url(), response.headers()['content-encoding'] ?? null);
  });
  await page.goto(`${baseUrl}#/runs/new`);
  await page.getByRole('textbox', { name: 'Question' }).waitFor();
  await page.waitForLoadState('load');
  const entries = await page.evaluate(() =>
    [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map((entry) => {
      const timing = entry as PerformanceResourceTiming;
      return {
        url: timing.name,
        kind: timing.initiatorType,
        transferred: timing.transferSize,
        encoded: timing.encodedBodySize,
        decoded: timing.decodedBodySize,
      };
    }),
  );
  // The app's own files: not the API's answers (their JSON is data, not the app).
  const firstLoad: Transfer[] = entries
    .filter((entry) => entry.url.startsWith(baseUrl) && !new URL(entry.url).pathname.startsWith('/api/'))
    .map((entry) => ({ ...entry, encoding: encodings.get(entry.url.split('#')[0]!) ?? null }));
  expect(firstLoad.length).toBeGreaterThan(0);

  await setModelLatency(inject('ollamaUrl'), 300);
  try {
    const runId = await startRun(page, 'quick');
    await waitForStatus(runId, ['done', 'error', 'cancelled'], 240_000);
    await page.getByTestId('report').waitFor({ timeout: 30_000 });
  } finally {
    await setModelLatency(inject('ollamaUrl'), 0);
  }
  const moments = await page.evaluate(() => window.__rhMoments);
  expect(moments.submitted).not.toBeNull();
  const since = (moment: number | null) =>
    moment === null || moments.submitted === null ? null : moment - moments.submitted;
  const result = {
    firstLoad,
    startToRunPageMs: since(moments.routed),
    startToFirstPhaseEventMs: since(moments.firstPhaseEvent),
    startToProgressMs: since(moments.progress),
    startToDraftTextMs: since(moments.draftText),
    startToReportMs: since(moments.report),
  };
  const out = process.env.RABBITHOLE_WEB_BENCH_DIR;
  if (out) await writeFile(path.join(out, 'flow.json'), JSON.stringify(result));
});
