import { useMemo, useState } from 'react';
import { EngineClient } from './api/client';
import { forgetCredentials, loadCredentials, saveCredentials, type Credentials } from './api/credentials';
import { Link, usePath } from './components/router';
import { SignIn } from './components/SignIn';
import { ApiView } from './views/ApiView';
import { ClusterView } from './views/ClusterView';
import { DataView } from './views/data/DataView';
import { EventsView } from './views/EventsView';
import { FunctionsView } from './views/FunctionsView';
import { MetadataView } from './views/MetadataView';
import { RemoteSchemasView } from './views/RemoteSchemasView';

const VIEWS = [
  { path: '/api', title: 'API' },
  { path: '/data', title: 'Data' },
  { path: '/remote-schemas', title: 'Remote schemas' },
  { path: '/functions', title: 'Functions' },
  { path: '/events', title: 'Events' },
  { path: '/metadata', title: 'Metadata' },
  { path: '/cluster', title: 'Cluster' },
] as const;

export function App() {
  const [credentials, setCredentials] = useState<Credentials | undefined>(loadCredentials);
  const client = useMemo(() => (credentials === undefined ? undefined : new EngineClient(credentials)), [credentials]);
  const path = usePath();
  if (client === undefined || credentials === undefined) {
    return (
      <SignIn
        onSignIn={(next) => {
          saveCredentials(next);
          setCredentials(next);
        }}
      />
    );
  }
  const section = VIEWS.find((view) => path === view.path || path.startsWith(`${view.path}/`))?.path ?? '/api';
  const rest = path.slice(section.length);
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">service-graphql-engine</span>
        <nav aria-label="Console sections">
          <ul>
            {VIEWS.map((view) => (
              <li key={view.path}>
                <Link to={view.path} current={view.path === section}>
                  {view.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            forgetCredentials();
            setCredentials(undefined);
          }}
        >
          Sign out
        </button>
      </header>
      <main className={section === '/api' ? 'main main-full' : 'main'}>
        {section === '/api' && (
          <ApiView
            client={client}
            onRole={(role) => {
              const next = { ...credentials, role };
              saveCredentials(next);
              setCredentials(next);
            }}
          />
        )}
        {section === '/data' && <DataView client={client} rest={rest} />}
        {section === '/remote-schemas' && <RemoteSchemasView client={client} />}
        {section === '/functions' && <FunctionsView client={client} />}
        {section === '/events' && <EventsView client={client} />}
        {section === '/metadata' && <MetadataView client={client} />}
        {section === '/cluster' && <ClusterView client={client} />}
      </main>
    </div>
  );
}
