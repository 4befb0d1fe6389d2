import { readFileSync } from 'node:fs';

/** The engine's version, `v` + package.json's, as the config and version APIs report it. */
export const ENGINE_VERSION: string = (() => {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'service-graphql-engine' && pkg.version !== undefined) return `v${pkg.version}`;
    } catch {
      continue;
    }
  }
  return 'v0.0.0-unknown';
})();

/** `service-graphql-engine/<version>`: Hasura's User-Agent in our vocabulary (compat-facts 0), on every outgoing request. */
export const USER_AGENT = `service-graphql-engine/${ENGINE_VERSION}`;
