import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

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
  const install = (): void => {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', pkg.name], { env, stdio: 'ignore', timeout: 600_000 });
  };
  try {
    install();
  } catch {
    // A fresh machine may have no package lists yet.
    execFileSync('apt-get', ['update'], { env, stdio: 'ignore', timeout: 300_000 });
    install();
  }
  if (!existsSync(pkg.installs)) throw new Error(`apt-get installed ${pkg.name} but ${pkg.installs} is still missing`);
}
