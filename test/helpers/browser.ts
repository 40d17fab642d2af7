// Browser tests of the dashboard: a gateway whose listeners really listen (127.0.0.1, port 0),
// Debian's Chromium driven by playwright-core (never a downloaded browser), and screenshots
// of every page saved to test-output/screenshots/ on each run (and to docs/screenshots/, the
// README's pictures, when UPDATE_SCREENSHOTS=1).
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { REPO_ROOT, startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';
import { listen } from './http.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where every run's screenshots go (test artifacts). */
export const ARTIFACT_SCREENSHOT_DIR = `${REPO_ROOT}test-output/screenshots/`;
export const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1' ? `${REPO_ROOT}docs/screenshots/` : ARTIFACT_SCREENSHOT_DIR;

export interface ListeningGateway extends TestGateway {
  adminUrl: string;
  publicUrl: string;
}

export async function startListeningGateway(t: Test, options: TestGatewayOptions = {}): Promise<ListeningGateway> {
  const tg = await startTestGateway(t, options);
  const { adminUrl, publicUrl } = await listen(tg);
  return { ...tg, adminUrl, publicUrl };
}

export async function launchBrowser(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  t.teardown(() => browser.close());
  return browser;
}

export const DESKTOP = { width: 1280, height: 800 };
/** A phone held upright (iPhone SE and many Androids are 375 CSS pixels wide). */
export const PHONE = { width: 375, height: 740 };

/** A fresh browser context (its own cookies), desktop-sized unless told; fails the test on any page error or alert. */
export async function newPage(t: Test, browser: Browser, viewport: { width: number; height: number } = DESKTOP): Promise<Page> {
  const context = await browser.newContext({
    viewport,
    locale: 'en-GB',
    timezoneId: 'UTC',
    ...(viewport.width < 600 ? { isMobile: true, hasTouch: true } : {}),
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  page.on('pageerror', (error) => t.fail(`page error: ${error.message}`));
  page.on('console', (message) => {
    // The browser logs every 4xx answer; tests assert those themselves.
    if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text()))
      t.fail(`console error: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    t.fail(`unexpected ${dialog.type()} dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  t.teardown(() => context.close());
  return page;
}

export async function signInWithToken(page: Page, adminUrl: string, token: string): Promise<void> {
  await page.goto(`${adminUrl}/dashboard`);
  await page.getByRole('textbox', { name: 'Admin token' }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${adminUrl}/dashboard`);
  await page.getByRole('heading', { name: 'API Credentials' }).waitFor();
  // The shell and its tabs are static HTML: the tabs answer keys and clicks only once the app has
  // loaded the session and vocabulary and filled the first panel (a busy machine has been seen
  // pressing ArrowRight before that, and waiting for a URL that never came).
  await page.locator('#panel-service-accounts > *').first().waitFor();
}

/** `dir`: ARTIFACT_SCREENSHOT_DIR for pictures the README never shows. */
export async function screenshot(page: Page, name: string, dir = SCREENSHOT_DIR): Promise<void> {
  mkdirSync(dir, { recursive: true });
  // Let fonts and focus rings settle so screenshots are stable.
  await page.evaluate('document.fonts.ready');
  await page.screenshot({ path: `${dir}${name}.png`, fullPage: true });
}

export interface PageFetchResult {
  status: number;
  body: { error?: string; [key: string]: unknown } | null;
}

/**
 * fetch() from inside the page (same origin, the page's cookies), for requests the UI would never
 * make, like a change without the CSRF token. Built as text: tsx rewrites test functions with
 * helpers that do not exist in the page.
 */
export async function fetchFromPage(
  page: Page,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<PageFetchResult> {
  const init = JSON.stringify({ method, headers: options.headers ?? {}, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  return page.evaluate<PageFetchResult>(
    `fetch(${JSON.stringify(path)}, ${init}).then(async (r) => { const text = await r.text(); return { status: r.status, body: text ? JSON.parse(text) : null }; })`,
  );
}
