import { ConfigValueError, OPTIONS, type ApiName, type ActorName, type OptionName, type OptionSpec, type Parser } from './options.js';

type ValueOf<N extends OptionName> = (typeof OPTIONS)[N] extends { parse: Parser<infer T> } ? T : never;
type Defaulted<N extends OptionName> = (typeof OPTIONS)[N] extends { default: unknown } ? ValueOf<N> : ValueOf<N> | undefined;

export type Config = { readonly [N in OptionName]: Defaulted<N> } & {
  readonly enabledApis: readonly ApiName[];
  readonly actors: readonly ActorName[];
};

/** A setting that stops start-up; the message names the flag and variable at fault. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface ParsedCommandLine {
  command: string | undefined;
  help: boolean;
  values: Map<OptionName, string>;
}

/** Reads `[command] [--flag value | --flag=value | --boolean-flag]...`. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const byFlag = new Map<string, OptionName>(Object.entries(OPTIONS).map(([name, spec]) => [spec.flag, name as OptionName]));
  const values = new Map<OptionName, string>();
  let command: string | undefined;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      if (command !== undefined) throw new ConfigError(`unexpected argument ${JSON.stringify(arg)}; see --help`);
      command = arg;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const name = byFlag.get(flag);
    if (name === undefined) throw new ConfigError(`unknown option ${flag}; see --help`);
    const spec: OptionSpec<unknown> = OPTIONS[name];
    if (eq !== -1) values.set(name, arg.slice(eq + 1));
    else if (spec.boolean) values.set(name, 'true');
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new ConfigError(`option ${flag} needs a value`);
      values.set(name, next);
      i++;
    }
  }
  return { command, help, values };
}

/**
 * One typed, validated config from flags (which win) and environment variables.
 * Cross-setting rules (JWT needs an admin secret, ...) are checked here too, so that a
 * bad combination stops start-up before anything connects.
 */
export function loadConfig(flags: Map<OptionName, string>, env: NodeJS.ProcessEnv): Config {
  const config: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(OPTIONS) as [OptionName, OptionSpec<unknown>][]) {
    const fromFlag = flags.get(name);
    const raw = fromFlag ?? env[spec.env];
    if (raw === undefined || (fromFlag === undefined && raw === '')) {
      config[name] = spec.default;
      continue;
    }
    try {
      config[name] = spec.parse(raw);
    } catch (error) {
      if (!(error instanceof ConfigValueError)) throw error;
      const source = fromFlag !== undefined ? spec.flag : spec.env;
      throw new ConfigError(`invalid value for ${source} (${spec.flag} / ${spec.env}): ${error.message}`);
    }
  }
  const result = config as Config;
  checkCombinations(result);
  return result;
}

function checkCombinations(config: Config): void {
  const { jwtSecret, authHook, adminSecret } = OPTIONS;
  if (config.jwtSecret !== undefined && config.adminSecret === undefined) {
    throw new ConfigError(`${jwtSecret.env} (${jwtSecret.flag}) needs an admin secret: set ${adminSecret.env} (${adminSecret.flag})`);
  }
  if (config.authHook !== undefined && config.adminSecret === undefined) {
    throw new ConfigError(`${authHook.env} (${authHook.flag}) needs an admin secret: set ${adminSecret.env} (${adminSecret.flag})`);
  }
  if (config.jwtSecret !== undefined && config.authHook !== undefined) {
    throw new ConfigError(`${jwtSecret.env} and ${authHook.env} cannot both be set: choose JWT or the authentication webhook`);
  }
}
