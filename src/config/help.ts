import { OPTIONS, type OptionSpec } from './options.js';

const USAGE = `Usage: service-graphql-engine [command] [options]

Commands:
  serve     run the HTTP edge and the actors (default)
  monitor   print the live cluster (instances, actors, counters) from NATS

Every option can also be given as an environment variable; a flag wins over its variable.
`;

export function helpText(): string {
  const rows = (Object.values(OPTIONS) as OptionSpec<unknown>[]).map((spec) => {
    const shown = spec.default === undefined ? '' : ` (default: ${Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default)})`;
    return `  ${spec.flag}${spec.boolean ? '' : ' <value>'}\n  ${spec.env}\n      ${spec.help}${shown}\n`;
  });
  return `${USAGE}\nOptions:\n${rows.join('\n')}`;
}
