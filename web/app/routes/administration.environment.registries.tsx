import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useState } from 'react';
import type { DestinationSummary } from '@service/core/registry';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';

export const meta: MetaFunction = () => [{ title: 'Registries' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await serverCaller(request, context.services)).registries.get();
}

/** A token field never shows the stored value: empty keeps it, a value replaces it, "clear" removes it. */
function tokenChange(form: FormData, name: string) {
  if (form.get(`${name}.clear`) === 'on') return { action: 'clear' as const };
  const value = String(form.get(name) ?? '').trim();
  return value ? { action: 'replace' as const, value } : { action: 'keep' as const };
}

export async function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    await caller.registries.save({
      routingMode: String(form.get('routingMode') ?? ''),
      public: {
        registryUrl: String(form.get('public.registryUrl') ?? '').trim(),
        publishToken: tokenChange(form, 'public.publishToken'),
        readToken: tokenChange(form, 'public.readToken'),
      },
      private:
        form.get('private.enabled') === 'on'
          ? {
              id: String(form.get('private.id') ?? '').trim(),
              registryUrl: String(form.get('private.registryUrl') ?? '').trim(),
              publishToken: tokenChange(form, 'private.publishToken'),
              readToken: tokenChange(form, 'private.readToken'),
            }
          : null,
    });
    return { saved: true as const };
  });
}

function TokenField({ name, label, isSet }: { name: string; label: string; isSet: boolean }) {
  return (
    <>
      <label htmlFor={name}>{label}</label>
      <span>
        <input id={name} name={name} type="password" autoComplete="off" placeholder={isSet ? 'set — type to replace' : 'not set'} />{' '}
        <label className="hint">
          <input type="checkbox" name={`${name}.clear`} disabled={!isSet} /> clear
        </label>{' '}
        <span className="hint">{isSet ? 'set' : 'not set'}</span>
      </span>
    </>
  );
}

function DestinationFields({ prefix, destination }: { prefix: 'public' | 'private'; destination: DestinationSummary | null }) {
  return (
    <>
      <label htmlFor={`${prefix}.registryUrl`}>Registry URL</label>
      <input id={`${prefix}.registryUrl`} name={`${prefix}.registryUrl`} type="url" defaultValue={destination?.registryUrl ?? ''} placeholder="https://registry.example.com/" />
      <TokenField name={`${prefix}.publishToken`} label="Publish token" isSet={destination?.publishTokenSet ?? false} />
      <TokenField name={`${prefix}.readToken`} label="Read token" isSet={destination?.readTokenSet ?? false} />
    </>
  );
}

export default function Registries() {
  const settings = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === 'submitting';
  const [privateEnabled, setPrivateEnabled] = useState(settings.private !== null);
  return (
    <>
      <h1>Environment › Registries</h1>
      <p className="hint">Where extension packages are published and pulled from. Tokens are sealed at rest and never shown again after saving. A stored token stays only with its registry: when a URL moves to another origin, enter its tokens again or clear them.</p>
      {settings.embedded ? (
        <p className="notice" role="note" data-testid="registry-embedded">
          Embedded: both destinations are the Verdaccio this service runs under its data directory (<code>{settings.public?.registryUrl}</code>), so a fresh instance publishes and pulls with nothing to set up. Save real registries below to replace it; the embedded one is then no longer started.
        </p>
      ) : null}
      {result && 'saved' in result ? <p className="notice" role="status">Registry settings saved.</p> : null}
      <Failure failure={result && 'error' in result ? result : null} />
      <Form method="post">
        <fieldset>
          <legend>Routing</legend>
          <div className="form-grid">
            <label htmlFor="routingMode">Routing mode</label>
            <select id="routingMode" name="routingMode" defaultValue={settings.routingMode ?? 'scope-based'}>
              <option value="scope-based">scope-based (--@scope:registry=URL)</option>
              <option value="shared-acl">shared-acl (--registry=URL)</option>
            </select>
          </div>
        </fieldset>
        <fieldset>
          <legend>Public destination</legend>
          <div className="form-grid">
            <DestinationFields prefix="public" destination={settings.public} />
          </div>
        </fieldset>
        <fieldset>
          <legend>
            <label>
              <input type="checkbox" name="private.enabled" checked={privateEnabled} onChange={(e) => setPrivateEnabled(e.target.checked)} /> Private destination
            </label>
          </legend>
          {privateEnabled ? (
            <div className="form-grid">
              <label htmlFor="private.id">Destination id</label>
              <input id="private.id" name="private.id" defaultValue={settings.private?.id ?? 'private'} pattern="[a-z0-9][a-z0-9-]*" />
              <DestinationFields prefix="private" destination={settings.private} />
            </div>
          ) : null}
        </fieldset>
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save registry settings'}
        </button>
      </Form>
    </>
  );
}
