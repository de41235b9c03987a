// What the dashboard's browser tests share: Debian's headless Chromium (driven by playwright-core),
// polling for what the page shows, and a screenshot plus the page's script errors when a test fails.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '../fixtures/recovery-helpers.ts';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Screenshots go here. */
export const OUT = join(REPO_ROOT, 'test-output');
/** A test's `skip` option: the reason where Chromium is missing, else false. */
export const skip: string | false = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install chromium): the dashboard's browser tests need it`;

/** Starts Chromium (and makes test-output/); undefined where it is missing (the tests skip then). */
export async function launchBrowser(): Promise<Browser | undefined> {
  if (skip) return undefined;
  mkdirSync(OUT, { recursive: true });
  // Imported here so that a suite skips cleanly (rather than fails to load) where Chromium is missing.
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Polls `probe` until it returns something truthy; the timeout names what was awaited. */
export async function until<T>(what: string, probe: () => Promise<T | false | null | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A number as the dashboard writes it (`12,345`). */
export const numberIn = (text: string | null) => Number((text ?? '').replace(/[^0-9.]/g, ''));

/** Opens a page and records its script errors (failed fetches after the server closed are expected, and not errors). */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource|ERR_CONNECTION_REFUSED|Failed to fetch/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return { page, errors };
}

/** Runs the body; on failure saves a screenshot of the page next to the others, then fails with the page's errors. */
export async function withDiagnostics(page: Page, errors: string[], name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    await page.screenshot({ path: join(OUT, `${name}-failure.png`), fullPage: true }).catch(() => {});
    (e as Error).message += `\npage errors: ${JSON.stringify(errors)}\nscreenshot: test-output/${name}-failure.png`;
    throw e;
  }
  assert.deepEqual(errors, [], 'the page had script errors');
}
