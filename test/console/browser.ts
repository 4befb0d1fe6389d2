import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ensureDebianPackage } from '../harness/debian-packages.js';

const CHROMIUM = '/usr/bin/chromium';

/** Where the console's screenshots go; CI prints this path. */
export const SCREENSHOTS = resolve('test-output', 'console');

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Every console error, page error and CSP violation the page reported. */
  problems: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Headless Debian Chromium (installed when missing), one page at 1280x800. Root needs
 * --no-sandbox; background networking stays off since the machine has no way out.
 */
export async function openBrowser(): Promise<ConsoleBrowser> {
  ensureDebianPackage({ name: 'chromium', installs: CHROMIUM });
  rmSync(SCREENSHOTS, { recursive: true, force: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  // A fresh profile each run (Playwright passes it as --user-data-dir).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // A violation is logged as a console error too; this catches one the browser only reports as an event.
  // Page code as text: it runs in the browser, which the tests' Node types know nothing of.
  await page.addInitScript({ content: "document.addEventListener('securitypolicyviolation', (event) => console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI));" });
  return {
    context,
    page,
    problems,
    async screenshot(name) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
