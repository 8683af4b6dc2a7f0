import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import type { Services } from '@service/core';
import { isLoopbackHost, type AuthorizationCheck } from '@service/core/auth/oauth';
import type { ReactNode } from 'react';
import { readAdminForm } from '~/auth/form.server.ts';
import { requireAdmin } from '~/auth/session.server.ts';
import { Badge, Button, Card, Checkbox, Facts, Notice, PageHeader } from '~/components/ui/index.ts';

export const meta: MetaFunction = () => [{ title: 'Connect an app' }];

/** The authorization request's parameters: the form sends them back, and the action reads them again. */
const REQUEST_PARAMETERS = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'scope', 'resource'] as const;

/** The "every tool" choice: tools added later are granted too. */
const EVERY_TOOL = '*';

type Refusal = { kind: 'refuse'; message: string };

/** What the page shows for a request that cannot be trusted: its reason, and no form (nothing is sent to the client). */
function refusal(message: string) {
  return data<Refusal>({ kind: 'refuse', message }, { status: 400 });
}

/** The tools an admin may grant, by connector, in the registry's order. */
function toolsByConnector(services: Services) {
  const groups = new Map<string, { name: string; description: string; writes: boolean }[]>();
  for (const primitive of services.primitives.list()) {
    const tools = groups.get(primitive.connector) ?? [];
    tools.push({ name: primitive.name, description: primitive.description, writes: primitive.permission === 'write' });
    groups.set(primitive.connector, tools);
  }
  return [...groups].map(([connector, tools]) => ({ connector, tools }));
}

type SendBack = { kind: 'send-back'; message: string; location: string; host: string };

/**
 * Reads the request. An error the client is to be told of is shown with a link back to it, not
 * followed at once: anyone may register a client or publish a metadata document, so its redirect
 * URI is not one to send a signed-in admin to without a click (RFC 9700 §4.11.2).
 */
async function check(services: Services, params: URLSearchParams): Promise<Exclude<AuthorizationCheck, { kind: 'redirect' }> | SendBack> {
  const checked = await services.oauth.authorization.read(params);
  if (checked.kind !== 'redirect') return checked;
  const location = new URL(checked.location);
  return { kind: 'send-back', message: location.searchParams.get('error_description') ?? location.searchParams.get('error') ?? 'the request is invalid', location: location.href, host: location.host || location.protocol };
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request, context.services);
  const params = new URL(request.url).searchParams;
  const checked = await check(context.services, params);
  if (checked.kind === 'refuse') return refusal(checked.message);
  if (checked.kind === 'send-back') return data<SendBack>(checked, { status: 400 });
  const { client, redirectUri, resource, requestedPrimitives } = checked.request;
  return {
    kind: 'consent' as const,
    productName: context.services.config.identity.productName,
    adminEmail: admin.email,
    client: { clientId: client.clientId, name: client.name, kind: client.kind, clientUri: client.clientUri },
    redirectUri,
    redirectHost: URL.canParse(redirectUri) ? new URL(redirectUri).host || new URL(redirectUri).protocol : redirectUri,
    loopbackOnly: client.redirectUris.every((uri) => URL.canParse(uri) && isLoopbackHost(new URL(uri).hostname)),
    clientHost: client.kind === 'metadata-document' ? new URL(client.clientId).host : null,
    resource,
    /** The scopes as the client asked for them (`mcp`, `mcp:<tool>`; others are ignored). */
    scope: params.get('scope') ?? 'mcp',
    requested: requestedPrimitives,
    connectors: toolsByConnector(context.services),
    passedOn: REQUEST_PARAMETERS.flatMap((name) => {
      const value = params.get(name);
      return value === null ? [] : [{ name, value }];
    }),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const admin = await requireAdmin(request, context.services);
  // Never trust an earlier read: the request is checked again as the form sends it back.
  const params = new URLSearchParams();
  for (const name of REQUEST_PARAMETERS) for (const value of form.getAll(name)) if (typeof value === 'string') params.append(name, value);
  const checked = await check(context.services, params);
  if (checked.kind === 'refuse') return refusal(checked.message);
  if (checked.kind === 'send-back') return refusal(`The request is not valid: ${checked.message}. Start again from the app.`);
  const authorization = context.services.oauth.authorization;
  // The redirects go to the client's own (absolute) redirect URI: Remix's JavaScript submission
  // follows them with a document navigation. Without JavaScript the native post would be
  // followed by the browser under the page's CSP `form-action 'self'`, which blocks the redirect
  // to another origin; that is accepted, the admin UI needs JavaScript for this page.
  switch (form.get('intent')) {
    case 'deny':
      return redirect(authorization.deny(checked.request));
    case 'approve': {
      const allowed = allowedPrimitives(context.services, form);
      if ('unknown' in allowed) return refusal(`No tool is named ${allowed.unknown.map((name) => JSON.stringify(name.slice(0, 100))).join(', ')}; nothing was granted. Reload the page to see the tools there are now.`);
      return redirect(await authorization.approve(admin, checked.request, allowed.names));
    }
    default:
      return refusal('Choose Allow or Deny.');
  }
}

/** The checked tools, each `*` or a tool this server has; `*` alone stands for all of them. */
function allowedPrimitives(services: Services, form: FormData): { names: string[] } | { unknown: string[] } {
  const chosen = [...new Set(form.getAll('primitive').filter((value): value is string => typeof value === 'string'))];
  const known = new Set(services.primitives.list().map((primitive) => primitive.name));
  const unknown = chosen.filter((name) => name !== EVERY_TOOL && !known.has(name));
  if (unknown.length > 0) return { unknown: unknown.slice(0, 5) };
  return { names: chosen.includes(EVERY_TOOL) ? [EVERY_TOOL] : chosen };
}

export default function Authorize() {
  const page = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-10">
      {page.kind === 'refuse' ? <Refused message={page.message} /> : page.kind === 'send-back' ? <SendBackPage page={page} /> : <Consent page={page} error={result?.message ?? null} />}
    </main>
  );
}

function SendBackPage({ page }: { page: SendBack }) {
  return (
    <Card className="w-full max-w-lg">
      <PageHeader title="This request cannot be granted" />
      <Notice tone="danger">{page.message}</Notice>
      <p className="text-sm text-muted">
        Nothing was granted. <a href={page.location}>Return to the app at {page.host}</a> to tell it so.
      </p>
    </Card>
  );
}

function Refused({ message }: { message: string }) {
  return (
    <Card className="w-full max-w-lg">
      <PageHeader title="This app cannot connect" />
      <Notice tone="danger">{message}</Notice>
      <p className="text-sm text-muted">Nothing was sent to the app. Close this page and tell whoever set up the app.</p>
    </Card>
  );
}

type ConsentPage = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, Refusal | SendBack>;

function Consent({ page, error }: { page: ConsentPage; error: string | null }) {
  const navigation = useNavigation();
  const submitting = navigation.state !== 'idle' ? navigation.formData?.get('intent') : null;
  const requested = new Set(page.requested);
  const { client } = page;
  return (
    <Card className="w-full max-w-2xl">
      <PageHeader eyebrow={page.productName} title={`Connect ${client.name}`} description={<>An MCP app asks to call tools of {page.productName} for you ({page.adminEmail}). Allow only the tools it needs; you can revoke it any time under Administration › MCP connections.</>} />
      {error ? <Notice tone="danger">{error}</Notice> : null}
      {client.kind === 'registered' ? (
        <Notice tone="warning">
          This app registered itself: “{client.name}” is its own claim, not checked by anyone. Allow it only if you started this connection and expected to be sent to <strong>{page.redirectHost}</strong>.
          {page.loopbackOnly ? ' It runs on your own computer (its redirect is a loopback address).' : null}
        </Notice>
      ) : (
        <Notice tone="info">
          “{client.name}” is what the document at <strong>{page.clientHost}</strong> says; that host vouches for it.
        </Notice>
      )}
      <Facts
        className="mb-4"
        items={[
          [
            'Client id',
            <>
              <code className="break-all">{client.clientId}</code>
              {client.kind === 'metadata-document' ? <p className="text-xs text-muted">The name “{client.name}” comes from the document at this URL.</p> : null}
            </>,
          ],
          ...(client.clientUri ? [['Website', <code className="break-all">{client.clientUri}</code>] as [ReactNode, ReactNode]] : []),
          ['Sends you back to', <code className="break-all">{page.redirectUri}</code>],
          ['Resource', <code className="break-all">{page.resource}</code>],
          ['Asks for', <code className="break-all">{page.scope}</code>],
        ]}
      />
      <Form method="post" className="space-y-4">
        {page.passedOn.map(({ name, value }) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <fieldset className="min-w-0 space-y-3">
          <legend className="mb-2 text-base font-semibold">Tools it may call</legend>
          <Checkbox name="primitive" value={EVERY_TOOL} defaultChecked={requested.has(EVERY_TOOL)} label={<strong>Every tool, including ones added later</strong>} />
          {page.connectors.map(({ connector, tools }) => (
            <div key={connector} role="group" aria-label={connector} className="space-y-1">
              <h3 className="text-sm font-semibold">
                <code>{connector}</code>
              </h3>
              {tools.map((tool) => (
                <Checkbox
                  key={tool.name}
                  className="flex items-start [&>input]:mt-0.5 [&>input]:shrink-0"
                  name="primitive"
                  value={tool.name}
                  defaultChecked={requested.has(tool.name) || requested.has(connector)}
                  label={
                    <span className="min-w-0">
                      <code>{tool.name}</code> {tool.writes ? <Badge tone="warning">writes</Badge> : null}
                      <span className="block text-xs text-muted">{tool.description}</span>
                    </span>
                  }
                />
              ))}
            </div>
          ))}
        </fieldset>
        <div className="flex flex-wrap gap-2">
          <Button type="submit" name="intent" value="approve" busy={submitting === 'approve'} disabled={!!submitting}>
            Allow
          </Button>
          <Button type="submit" name="intent" value="deny" variant="secondary" busy={submitting === 'deny'} disabled={!!submitting}>
            Deny
          </Button>
        </div>
      </Form>
    </Card>
  );
}
