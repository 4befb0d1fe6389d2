import { explorerPlugin } from '@graphiql/plugin-explorer';
import '@graphiql/plugin-explorer/style.css';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL, HISTORY_PLUGIN } from 'graphiql';
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import { useMemo } from 'react';
import type { EngineClient } from '../api/client';
import { credentialHeaders } from '../api/credentials';
import { rolesOf, type Metadata } from '../api/metadata';
import { useAsync } from '../components/useAsync';

/** History first (GraphiQL's default), then the explorer that builds queries by ticking fields. */
const PLUGINS = [HISTORY_PLUGIN, explorerPlugin()];

/**
 * GraphiQL against /v1/graphql as the chosen role: queries and mutations over HTTP,
 * subscriptions over the WebSocket, the explorer, history and a header editor of its own.
 * `?query=` in the address opens a query (a link to share).
 */
export function ApiView({ client, onRole }: { client: EngineClient; onRole: (role: string) => void }) {
  const { credentials } = client;
  const roles = useAsync(async () => (credentials.adminSecret === '' && credentials.jwt !== '' ? [] : rolesOf(await client.query<Metadata>('export_metadata', {}))), [client]);
  const fetcher = useMemo(() => {
    const headers = credentialHeaders(credentials, true);
    const socket = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/v1/graphql`;
    return createGraphiQLFetcher({ url: '/v1/graphql', headers, subscriptionUrl: socket, wsConnectionParams: { headers } });
  }, [credentials]);
  const initialQuery = new URLSearchParams(window.location.search).get('query') ?? undefined;
  return (
    <div className="api-view">
      <div className="toolbar" role="group" aria-label="Request as">
        <label htmlFor="role-switcher">Role (x-service-role)</label>
        <select id="role-switcher" value={credentials.role} onChange={(event) => onRole(event.target.value)}>
          <option value="">{credentials.adminSecret === '' && credentials.jwt !== '' ? 'from the JWT' : 'admin'}</option>
          {(roles.value ?? []).map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
          {credentials.role !== '' && !(roles.value ?? []).includes(credentials.role) && <option value={credentials.role}>{credentials.role}</option>}
        </select>
        <span className="hint">The schema below is the one this role sees.</span>
      </div>
      <div className="graphiql-host">
        <GraphiQL key={credentials.role} fetcher={fetcher} plugins={PLUGINS} initialQuery={initialQuery} shouldPersistHeaders={false} />
      </div>
    </div>
  );
}
