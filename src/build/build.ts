import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The build: compiles the server (tsc) and builds the console (vite). `npm start` runs it
 * without `--always`, so a part is built only when its sources changed since its last
 * successful build and an unchanged checkout starts at once. A build that succeeds
 * stamps its start time in dist/.
 */
interface Part {
  name: string;
  /** Files and folders whose changes call for a rebuild. */
  sources: string[];
  /** Folders under `sources` that belong to another part. */
  skip: string[];
  stamp: string;
  command: string[];
}

const root = join(import.meta.dirname, '..', '..');
const lockfile = join(root, 'package-lock.json');
const consoleDir = join(root, 'src', 'console');
/** `--always` (npm run build): build both parts whatever changed. */
const always = process.argv.includes('--always');
/** `--only=console` (the browser tests): build that part alone. */
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);

const PARTS: Part[] = [
  {
    name: 'server',
    sources: [join(root, 'src'), join(root, 'actors'), join(root, 'tsconfig.json'), lockfile],
    skip: [consoleDir],
    stamp: join(root, 'dist', '.server-built'),
    command: ['tsc', '-p', 'tsconfig.json'],
  },
  {
    name: 'console',
    sources: [consoleDir, lockfile],
    skip: [],
    stamp: join(root, 'dist', '.console-built'),
    command: ['vite', 'build', '--config', 'src/console/vite.config.ts'],
  },
];

/** The newest modification time under `path`, in ms. */
function newest(path: string, skip: string[]): number {
  if (skip.includes(path)) return 0;
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry), skip));
  return latest;
}

for (const part of PARTS.filter((candidate) => only === undefined || candidate.name === only)) {
  const built = statSync(part.stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const changed = Math.max(...part.sources.map((source) => newest(source, part.skip)));
  if (!always && changed < built) continue;
  process.stdout.write(`building the ${part.name}\n`);
  const started = Date.now();
  const result = spawnSync('npx', ['--no-install', ...part.command], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`the ${part.name} build failed\n`);
    process.exit(result.status ?? 1);
  }
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(part.stamp, `${new Date(started).toISOString()}\n`);
}
