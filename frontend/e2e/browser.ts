/** Debian's Chromium driven by playwright-core (no browser download): a fresh profile per launch. */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';

import { repoRoot } from './stack';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const ARTIFACTS = path.join(repoRoot, 'frontend', 'e2e', 'artifacts');

export interface Browser {
  context: BrowserContext;
  close: () => Promise<void>;
}

/** A browser with a fresh profile; ``locale`` is what the app sees as the browser's language. */
export async function launchBrowser(locale = 'en-US'): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (make setup does, as root)`);
  }
  const profile = await mkdtemp(path.join(tmpdir(), 'rabbithole-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    locale,
    viewport: { width: 1366, height: 860 },
  });
  // Every page runs under the server's Content-Security-Policy: a violation fails the file on close.
  const violations: string[] = [];
  context.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy')) {
      violations.push(`${message.location().url}: ${message.text()}`);
    }
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
      if (violations.length > 0) throw new Error(`Content-Security-Policy violations:\n${violations.join('\n')}`);
    },
  };
}

/** A page that fails the test on an uncaught error in the app. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  return { page, errors };
}

/** Saves a full-page screenshot as frontend/e2e/artifacts/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
