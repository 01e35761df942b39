/** What the scenarios share: the stack's URLs, starting a run through the New run page, reading the API. */
import type { Page } from 'playwright-core';
import { expect, inject } from 'vitest';

export const QUESTION = 'Welche Gebühren werden für Genehmigungen nach dem Atomgesetz erhoben?';

export function baseUrl(): string {
  return inject('baseUrl');
}

export function ollamaUrl(): string {
  return inject('ollamaUrl');
}

export async function api<T>(path: string): Promise<T> {
  const answer = await fetch(`${baseUrl()}${path}`);
  expect(answer.ok, `${path}: ${answer.status}`).toBe(true);
  return (await answer.json()) as T;
}

export interface RunDetail {
  run: { status: string; question: string };
  todo: { id: string; title: string; state: string }[];
  interrupt: { kind: string } | null;
}

/** Fills the New run page and starts the run on collection "laws"; the run's id from the URL it lands on.
 * ``appUrl``: where the app is served (the server's own URL, or a proxy's). */
export async function startRun(page: Page, mode: 'interactive' | 'quick', appUrl = baseUrl()): Promise<string> {
  if (page.url().startsWith(appUrl)) {
    await page.getByRole('navigation').getByRole('link', { name: 'New run' }).click();
  } else {
    await page.goto(`${appUrl}#/runs/new`);
  }
  await page.getByRole('textbox', { name: 'Question' }).fill(QUESTION);
  await page.getByRole('checkbox', { name: 'laws', exact: true }).check();
  await page.getByRole('radio', { name: mode === 'interactive' ? /Interactive/ : /Quick/ }).check();
  await page.getByRole('button', { name: 'Start research' }).click();
  await page.waitForURL(/#\/runs\/[0-9a-f-]+$/);
  const runId = new URL(page.url()).hash.split('/').pop() ?? '';
  expect(runId).not.toBe('');
  return runId;
}

/** The text of the run page's phase timeline. */
export async function phases(page: Page): Promise<string> {
  return (await page.getByTestId('run-phase').innerText()).trim();
}

export async function waitForStatus(runId: string, statuses: string[], timeoutMs = 150_000): Promise<RunDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await api<RunDetail>(`api/runs/${runId}`);
    if (statuses.includes(detail.run.status)) return detail;
    expect(Date.now(), `run ${runId} still ${detail.run.status}`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A file for {@link dropFiles}: its bytes (base64) or its text (none: an empty file), and its type. */
export interface DroppedFile {
  name: string;
  base64?: string;
  text?: string;
  type?: string;
}

/** A real drop on the collection page's drop zone: a DataTransfer holding the files. */
export async function dropFiles(page: Page, files: DroppedFile[]): Promise<void> {
  const dataTransfer = await page.evaluateHandle((items: DroppedFile[]) => {
    const transfer = new DataTransfer();
    for (const item of items) {
      const content =
        item.base64 === undefined ? (item.text ?? '') : Uint8Array.from(atob(item.base64), (c) => c.charCodeAt(0));
      transfer.items.add(new File([content], item.name, item.type === undefined ? undefined : { type: item.type }));
    }
    return transfer;
  }, files);
  await page.getByTestId('upload-dropzone').dispatchEvent('drop', { dataTransfer });
}
