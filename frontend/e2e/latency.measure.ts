/**
 * `make bench` (benchmarks/bench_web.py) runs this with measure.config.ts: the time from a run's SSE event
 * arriving in the browser to the DOM changing, in the app (EventSource -> event reducer -> React render) and,
 * as the baseline in the same run, in a page without React whose EventSource handler writes the event into
 * the DOM itself. The app marks each commit that applied events (User Timing, with the last event's
 * number): an event is in the DOM at the first such mark that covers it, whether or not it changed anything
 * visible. Both watch the same quick run on the fake Ollama at once. Beside the stamps, where each
 * page's main thread spent its time (Chromium's own counters over CDP: scripts, style, layout, all tasks)
 * and its long tasks (over 50 ms). Writes JSON to $RABBITHOLE_WEB_BENCH_DIR/latency.json. Not part of
 * `npm run test:e2e`: timings are never asserted.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';

import { type Browser, launchBrowser } from './browser';
import { LAWS, setModelLatency } from './stack';

interface Timings {
  events: number[];
  /** Each event's type and number, in the order of ``events``. */
  types: string[];
  seqs: number[];
  /** The app's marks (useRunEvents' EVENTS_APPLIED_MARK): [time, number of the last event in the DOM]. */
  applied: [number, number][];
  mutations: number[];
  /** What each mutation changed first: the nearest element's data-testid, else its tag and class. */
  targets: string[];
  /** Long tasks of the main thread: [start, duration] (ms). */
  longTasks: [number, number][];
  done: boolean;
}

/** Chromium's main-thread counters of a page (Performance.getMetrics), in ms. */
interface MainThread {
  taskMs: number;
  scriptMs: number;
  styleMs: number;
  layoutMs: number;
}

declare global {
  interface Window {
    __rhTimings: Timings;
  }
}

/** In every page before its scripts: EventSource deliveries and DOM mutations, stamped with performance.now(). */
function instrument(): void {
  const timings: Timings = {
    events: [],
    types: [],
    seqs: [],
    applied: [],
    mutations: [],
    targets: [],
    longTasks: [],
    done: false,
  };
  window.__rhTimings = timings;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) timings.longTasks.push([entry.startTime, entry.duration]);
  }).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail: unknown = (entry as PerformanceMark).detail;
      if (entry.name === 'rabbithole:run-events-applied' && typeof detail === 'number') {
        timings.applied.push([entry.startTime, detail]);
      }
    }
  }).observe({ type: 'mark', buffered: true });
  const Native = window.EventSource;
  class Recorded extends Native {
    constructor(url: string | URL, init?: EventSourceInit) {
      super(url, init);
      // Only a run's own stream (/api/runs/<id>/events), not the run list's (/api/runs/events).
      const runStream = /\/api\/runs\/(?!events)[^/]+\/events/.test(String(url));
      const seen = new Set<string>();
      const original = this.addEventListener.bind(this);
      const record = (event: Event) => {
        const data = (event as MessageEvent<string | undefined>).data;
        if (data === undefined) return; // a connection error
        timings.events.push(performance.now());
        timings.types.push(event.type);
        timings.seqs.push((JSON.parse(data) as { seq: number }).seq);
        if (event.type === 'done' || event.type === 'error') timings.done = true;
      };
      // Stamp each event type the page listens to, before the page's own listener runs.
      this.addEventListener = ((type: string, listener: EventListenerOrEventListenerObject, options?: unknown) => {
        if (runStream && !seen.has(type)) {
          seen.add(type);
          original(type, record);
        }
        original(type, listener, options as AddEventListenerOptions);
      }) as typeof this.addEventListener;
    }
  }
  window.EventSource = Recorded as typeof EventSource;
  const describe = (node: Node): string => {
    const element = node instanceof Element ? node : node.parentElement;
    const marked = element?.closest('[data-testid]');
    if (marked) return marked.getAttribute('data-testid') ?? '';
    return element ? `${element.tagName.toLowerCase()}.${element.className}` : node.nodeName;
  };
  const observe = () =>
    new MutationObserver((records) => {
      timings.mutations.push(performance.now());
      timings.targets.push(records[0] ? describe(records[0].target) : '');
    }).observe(document.documentElement, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  if (document.documentElement) observe();
  else document.addEventListener('DOMContentLoaded', observe);
}

/** The page of the baseline: every event written into the DOM by its handler, no framework. */
function rawListener(url: string): void {
  const source = new EventSource(url);
  const log = document.createElement('ol');
  document.body.append(log);
  const types = ['status', 'phase', 'language', 'clarification', 'assessment', 'plan', 'todo', 'task_progress',
    'reference_followed', 'warning', 'remediation', 'interrupt', 'report', 'error', 'done'];
  for (const type of types) {
    source.addEventListener(type, (event) => {
      const data = (event as MessageEvent<string | undefined>).data;
      if (data === undefined) return; // the connection's own error event, not the run's
      const item = document.createElement('li');
      item.textContent = `${type}: ${data.slice(0, 80)}`;
      log.append(item);
      if (type === 'done' || type === 'error') source.close();
    });
  }
}

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser('en-US');
  await browser.context.addInitScript(instrument);
});

afterAll(async () => {
  await browser?.close();
});

async function timings(page: Page): Promise<Timings> {
  return page.evaluate(() => window.__rhTimings);
}

/** Starts Chromium's counters for ``page``; the returned function reads them. */
async function mainThread(page: Page): Promise<() => Promise<MainThread>> {
  const session = await browser.context.newCDPSession(page);
  await session.send('Performance.enable');
  return async () => {
    const { metrics } = await session.send('Performance.getMetrics');
    const seconds = (name: string) => metrics.find((metric) => metric.name === name)?.value ?? 0;
    return {
      taskMs: seconds('TaskDuration') * 1000,
      scriptMs: seconds('ScriptDuration') * 1000,
      styleMs: seconds('RecalcStyleDuration') * 1000,
      layoutMs: seconds('LayoutDuration') * 1000,
    };
  };
}

test('SSE event to DOM update, app and baseline', async () => {
  const baseUrl = inject('baseUrl');
  await setModelLatency(inject('ollamaUrl'), 40);
  const created = await fetch(`${baseUrl}api/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      question: 'Welche Gebühren und Auslagen werden nach der Kostenverordnung erhoben?',
      collections: [LAWS],
      mode: 'quick',
      settings: { depth: 1 },
    }),
  });
  expect(created.status).toBe(201);
  const { run_id: runId } = (await created.json()) as { run_id: string };

  const app = await browser.context.newPage();
  const raw = await browser.context.newPage();
  const appThread = await mainThread(app);
  const rawThread = await mainThread(raw);
  await raw.goto(`${baseUrl}health`);
  await Promise.all([
    app.goto(`${baseUrl}#/runs/${runId}`),
    raw.evaluate(rawListener, `${baseUrl}api/runs/${runId}/events`),
  ]);
  const deadline = Date.now() + 150_000;
  while (!((await timings(app)).done && (await timings(raw)).done)) {
    expect(Date.now()).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the last renders
  const result = {
    app: { ...(await timings(app)), mainThread: await appThread() },
    raw: { ...(await timings(raw)), mainThread: await rawThread() },
  };
  expect(result.app.events.length).toBeGreaterThan(0);
  const out = process.env.RABBITHOLE_WEB_BENCH_DIR;
  if (out) await writeFile(path.join(out, 'latency.json'), JSON.stringify(result));
  await setModelLatency(inject('ollamaUrl'), 0);
});
