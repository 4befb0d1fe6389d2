import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** How long apt waits for another apt (another test file's install) to let go of dpkg's lock. */
const APT_LOCK_WAIT_S = 600;

export interface DebianPackage {
  /** The package's name in Debian, e.g. `chromium`. */
  name: string;
  /** A file the package installs; present means installed. */
  installs: string;
}

/**
 * Installs a Debian package the tests need when the machine lacks it. CI runs on a clean
 * machine and every install step must live in the project, so the test set-up does it.
 * Installing needs root and apt-get; without them the error names the package to install.
 */
export function ensureDebianPackage(pkg: DebianPackage): void {
  if (existsSync(pkg.installs)) return;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    throw new Error(`the tests need the Debian package ${pkg.name} (${pkg.installs} is missing): install it with apt-get install ${pkg.name}`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Test files run in parallel, and two may each install a package at once: the second
  // waits for dpkg's lock instead of failing. apt's own words go into a failure's message.
  const apt = (args: string[]): void => {
    execFileSync('apt-get', ['-o', `DPkg::Lock::Timeout=${APT_LOCK_WAIT_S}`, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 900_000 });
  };
  const install = (): void => apt(['install', '-y', '--no-install-recommends', pkg.name]);
  try {
    install();
  } catch {
    // A fresh machine may have no package lists yet.
    apt(['update']);
    install();
  }
  if (!existsSync(pkg.installs)) throw new Error(`apt-get installed ${pkg.name} but ${pkg.installs} is still missing`);
}
