/** What the console sends with every request; kept in this browser's localStorage only. */
export interface Credentials {
  adminSecret: string;
  jwt: string;
  /** The role to act as: `x-service-role`, sent with the admin secret or the JWT. */
  role: string;
}

const KEY = 'service-console.credentials';

export function loadCredentials(): Credentials | undefined {
  const raw = localStorage.getItem(KEY);
  if (raw === null) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<Credentials>;
    return { adminSecret: parsed.adminSecret ?? '', jwt: parsed.jwt ?? '', role: parsed.role ?? '' };
  } catch {
    return undefined;
  }
}

export function saveCredentials(credentials: Credentials): void {
  localStorage.setItem(KEY, JSON.stringify(credentials));
}

export function forgetCredentials(): void {
  localStorage.removeItem(KEY);
}

/** The request headers the credentials stand for; `asRole` false leaves the role out (the console's admin calls). */
export function credentialHeaders(credentials: Credentials, asRole: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credentials.adminSecret !== '') headers['x-service-admin-secret'] = credentials.adminSecret;
  if (credentials.jwt !== '') headers.authorization = `Bearer ${credentials.jwt}`;
  if (asRole && credentials.role !== '') headers['x-service-role'] = credentials.role;
  return headers;
}
