import { ConfigError, type Config } from '../../src/config/load.js';
import { OPTIONS } from '../../src/config/options.js';
import { validateJwtConfig, type JwtSettings } from './jwt/config.js';


/**
 * Every start-up check of the auth settings that `loadConfig` does not make: the JWT
 * config (a `ConfigError` naming the key at fault), and Hasura's rule that an
 * unauthorized role needs an admin secret and is not allowed with an auth webhook
 * (the webhook decides every request's role). `main` may call it before anything
 * starts; the auth actor calls it in `start()`.
 */
export function validateAuthConfig(config: Config): JwtSettings | undefined {
  const { unauthorizedRole, adminSecret, authHook } = OPTIONS;
  if (config.unauthorizedRole !== undefined && config.adminSecret === undefined) {
    throw new ConfigError(`${unauthorizedRole.env} (${unauthorizedRole.flag}) needs an admin secret: set ${adminSecret.env} (${adminSecret.flag})`);
  }
  if (config.unauthorizedRole !== undefined && config.authHook !== undefined) {
    throw new ConfigError(`${unauthorizedRole.env} (${unauthorizedRole.flag}) is not allowed when ${authHook.env} (${authHook.flag}) is set: the webhook decides every request's role`);
  }
  return validateJwtConfig(config);
}
