import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { reportSkip } from './skip-report';

/** Debian's Chromium (package chromium), which CI installs; without it the browser tests are skipped, saying so. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether Chromium is here; when not, the skip is reported for `what` (CI prints it beside the counts). */
export function hasChromium(what: string): boolean {
  const isThere = existsSync(CHROMIUM);
  if (!isThere) reportSkip(`${what}: ${CHROMIUM} is missing`);
  return isThere;
}

export interface OpenBrowser {
  browser: BrowserContext;
  page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile of its own (playwright takes it as launchPersistentContext's first argument,
 * not as --user-data-dir), nothing that reaches the network by itself, and its first page.
 */
export async function openChromium(viewport = { width: 1400, height: 900 }): Promise<OpenBrowser> {
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'tc-chromium-'));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport,
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  return {
    browser,
    page,
    async close() {
      await browser.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
