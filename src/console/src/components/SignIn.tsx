import { useState, type FormEvent } from 'react';
import type { Credentials } from '../api/credentials';

/** Asks for the admin secret (or a JWT); they stay in this browser and go only to this engine. */
export function SignIn({ onSignIn }: { onSignIn: (credentials: Credentials) => void }) {
  const [adminSecret, setAdminSecret] = useState('');
  const [jwt, setJwt] = useState('');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    onSignIn({ adminSecret: adminSecret.trim(), jwt: jwt.trim(), role: '' });
  };
  return (
    <main className="signin">
      <h1>Console</h1>
      <p>Credentials are kept in this browser only (localStorage) and sent as request headers to this engine.</p>
      <form onSubmit={submit}>
        <label htmlFor="admin-secret">Admin secret</label>
        <input id="admin-secret" type="password" autoComplete="current-password" value={adminSecret} onChange={(event) => setAdminSecret(event.target.value)} />
        <label htmlFor="jwt">Or a JWT (Authorization: Bearer)</label>
        <input id="jwt" type="password" value={jwt} onChange={(event) => setJwt(event.target.value)} />
        <p className="hint">Leave both empty when the engine runs without an admin secret (development mode).</p>
        <button type="submit">Open the console</button>
      </form>
    </main>
  );
}
