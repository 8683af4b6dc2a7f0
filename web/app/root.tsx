// First: the setting must be in place before any module builds a schema (zod-in-browser.ts).
import './zod-in-browser.ts';
import type { LinksFunction, MetaFunction } from '@remix-run/node';
import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useRouteError } from '@remix-run/react';
import { setNonce } from 'get-nonce';
import { useEffect } from 'react';
import { Toaster, TooltipProvider } from './components/ui/index.ts';
import { useNonce } from './nonce.ts';
import styles from './styles/app.css?url';

// Radix dialogs inject a <style> while open; the policy admits it with this response's nonce,
// which the browser still exposes on the element's property (not its attribute) after parsing.
if (typeof document !== 'undefined') setNonce(document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce ?? '');

/** An error page is titled by its error (route `meta` does not run for it). */
export const meta: MetaFunction = ({ error }) => (error ? [{ title: isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : 'Something went wrong' }] : []);

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: styles },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
];

export function Layout({ children }: { children: React.ReactNode }) {
  // The Content-Security-Policy admits inline scripts only with this response's nonce.
  const nonce = useNonce();
  // Marks a hydrated page: `js:` styles apply only then (app.css), and tests wait for it.
  useEffect(() => {
    document.documentElement.dataset.js = 'on';
  }, []);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return (
    <TooltipProvider>
      <Toaster>
        <Outlet />
      </Toaster>
    </TooltipProvider>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const title = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : 'Something went wrong';
  const detail = isRouteErrorResponse(error) && typeof error.data === 'string' ? error.data : null;
  const outage = isRouteErrorResponse(error) ? asOutage(error.data) : null;
  return (
    <main className="mx-auto my-[10vh] max-w-md space-y-3 rounded-lg border border-line bg-panel p-6">
      <h1>{title}</h1>
      {detail ? <p>{detail}</p> : null}
      {outage ? (
        <>
          <p role="alert" className="text-danger">{outage.message}</p>
          <p>
            Health: <strong data-testid="health-status">{outage.status}</strong>
            {outage.database ? ` · database ${outage.database}` : null}. Nobody was signed out; reload once the database answers again.
          </p>
        </>
      ) : null}
      <p>
        <a href="/administration">Back to Administration</a>
      </p>
    </main>
  );
}

/** The body of a 503 (auth/session.server.ts `unavailableOr`): the error and what /healthz reported. */
function asOutage(data: unknown): { message: string; status: string; database: string | null } | null {
  const body = data as { error?: { message?: unknown }; health?: { status?: unknown; checks?: { database?: { status?: unknown } } } } | null;
  if (!body || typeof body !== 'object' || !body.health || typeof body.health.status !== 'string') return null;
  const database = body.health.checks?.database?.status;
  return { message: typeof body.error?.message === 'string' ? body.error.message : 'The service is unavailable', status: body.health.status, database: typeof database === 'string' ? database : null };
}
