import { useEffect, useState } from 'react';

/** The console's pages live under /console/; the engine answers index.html for each of them. */
export const BASE = '/console';

/** The path inside the console, e.g. `/data/public/author`. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = (): void => setPath(currentPath());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return path;
}

function currentPath(): string {
  const inner = window.location.pathname.slice(BASE.length);
  return inner === '' ? '/' : inner;
}

export function navigate(to: string): void {
  window.history.pushState(null, '', `${BASE}${to}`);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** A link inside the console: a real href (opens in a new tab too) that routes in place. */
export function Link({ to, children, current }: { to: string; children: React.ReactNode; current?: boolean }) {
  return (
    <a
      href={`${BASE}${to}`}
      aria-current={current === true ? 'page' : undefined}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
