import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import type { DestinationSummary } from '@service/core/registry';
import { useEffect, useState } from 'react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Button, Card, Checkbox, ConfirmButton, Notice, PageHeader, SelectField, TextField, type FieldMeta } from '~/components/ui/index.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { registriesForm, registrySettings, TOKEN_FIELDS } from '~/forms/registries.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Registries' }];

const removePrivateForm = z.object({ intent: z.literal('remove-private') });

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await serverCaller(request, context.services)).registries.get();
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  if (form.get('intent') === 'remove-private') {
    return submitForm('remove-private', form, removePrivateForm, async () => {
      await caller.registries.removePrivate();
      return { removed: true as const };
    });
  }
  return submitForm(
    'registries',
    form,
    registriesForm,
    async (value) => {
      await caller.registries.save(registrySettings(value));
      return { saved: true as const };
    },
    { hideFields: TOKEN_FIELDS },
  );
}

type Meta = FieldMeta;

/** A token is write-only: the field never shows the stored one; empty keeps it, a value replaces it, "clear" removes it. */
function TokenField({ id, label, meta, clear, isSet }: { id: string; label: string; meta: Meta; clear: Meta; isSet: boolean }) {
  return (
    <div className="min-w-0">
      <TextField
        id={id}
        meta={meta}
        label={label}
        type="password"
        autoComplete="off"
        placeholder={isSet ? 'set — type to replace' : 'not set'}
        help={isSet ? 'A token is stored. Leave this empty to keep it.' : 'No token is stored.'}
      />
      <Checkbox name={clear.name} disabled={!isSet} defaultChecked={clear.initialValue === 'on'} label={`Clear the stored ${label.toLowerCase()}`} className="mt-2" />
    </div>
  );
}

export default function Registries() {
  const settings = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === 'submitting';
  const [form, fields] = useSchemaForm(registriesForm, {
    id: 'registries',
    lastResult: replyFor(result, 'registries'),
    defaultValue: {
      routingMode: settings.routingMode ?? 'scope-based',
      publicRegistryUrl: settings.public?.registryUrl ?? '',
      privateEnabled: settings.private ? 'on' : undefined,
      privateId: settings.private?.id ?? 'private',
      privateRegistryUrl: settings.private?.registryUrl ?? '',
    },
  });
  const [privateEnabled, setPrivateEnabled] = useState(fields.privateEnabled.initialValue === 'on');
  // Once hydrated, an unticked private destination's fields are hidden and disabled (neither sent
  // nor checked); without JavaScript they always show and the server ignores them while unticked.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const tokens = (prefix: 'public' | 'private', destination: DestinationSummary | null) => {
    const f = prefix === 'public' ? { publish: fields.publicPublishToken, clearPublish: fields.publicClearPublishToken, read: fields.publicReadToken, clearRead: fields.publicClearReadToken } : { publish: fields.privatePublishToken, clearPublish: fields.privateClearPublishToken, read: fields.privateReadToken, clearRead: fields.privateClearReadToken };
    return (
      <div className="grid gap-4 sm:grid-cols-2">
        <TokenField id={`${prefix}.publishToken`} label="Publish token" meta={f.publish} clear={f.clearPublish} isSet={destination?.publishTokenSet ?? false} />
        <TokenField id={`${prefix}.readToken`} label="Read token" meta={f.read} clear={f.clearRead} isSet={destination?.readTokenSet ?? false} />
      </div>
    );
  };
  return (
    <>
      <PageHeader
        title="Environment › Registries"
        description="Where extension packages are published and pulled from. Tokens are sealed at rest and never shown again after saving. A stored token stays only with its registry: when a URL moves to another origin, enter its tokens again or clear them."
      />
      {settings.embedded ? (
        <Notice tone="info" role="note" testId="registry-embedded">
          Embedded: both destinations are the Verdaccio this service runs under its data directory (<code className="[overflow-wrap:anywhere]">{settings.public?.registryUrl}</code>), so a fresh instance publishes and pulls with nothing to set up. Save real registries below to replace it; the embedded one is then no longer started.
        </Notice>
      ) : null}
      {result && 'saved' in result ? <Notice tone="success">Registry settings saved.</Notice> : null}
      {result && 'removed' in result ? <Notice tone="success">Private destination removed with its tokens. Extensions published there stay installed.</Notice> : null}
      <FormErrors id="remove-private-errors" errors={replyFor(result, 'remove-private')?.error?.[''] ?? undefined} />
      <Form method="post" {...getFormProps(form)} className="space-y-6">
        <Card title="Routing" description="scope-based: the instance's own scope goes to the private registry, everything else to the public one. shared-acl: one registry for both, its access rules decide.">
          <SelectField
            id="routingMode"
            meta={fields.routingMode}
            label="Routing mode"
            className="sm:max-w-md"
            options={[
              { value: 'scope-based', label: 'scope-based (--@scope:registry=URL)' },
              { value: 'shared-acl', label: 'shared-acl (--registry=URL)' },
            ]}
          />
        </Card>

        <Card title="Public registry" description="Where packages anyone may install are published, and where third-party packages are pulled from.">
          <div className="space-y-4">
            <TextField id="public.registryUrl" meta={fields.publicRegistryUrl} label="Registry URL" type="url" placeholder="https://registry.example.com/" />
            {tokens('public', settings.public)}
          </div>
        </Card>

        <Card title="Private registry" description="Where the instance's own packages are published until they are promoted.">
          <Checkbox name={fields.privateEnabled.name} label="Use a private destination" checked={privateEnabled} onChange={(event) => setPrivateEnabled(event.target.checked)} />
          <fieldset disabled={hydrated && !privateEnabled} className={privateEnabled ? 'mt-4 min-w-0 space-y-4' : 'mt-4 min-w-0 space-y-4 js:hidden'}>
            <TextField id="private.id" meta={fields.privateId} label="Destination id" className="sm:max-w-xs" help="Lower-case letters, digits and hyphens; not “public”." />
            <TextField id="private.registryUrl" meta={fields.privateRegistryUrl} label="Registry URL" type="url" placeholder="https://registry.example.com/" />
            {tokens('private', settings.private)}
          </fieldset>
        </Card>

        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, 'registries')} />
        <Button type="submit" busy={busy}>
          Save registry settings
        </Button>
      </Form>
      {settings.private && !settings.embedded ? (
        <Card
          className="mt-6"
          title="Remove the private destination"
          description={
            <>
              Deletes <code>{settings.private.id}</code> and its sealed tokens: the instance’s own packages cannot be published privately until a private destination is set again. Extensions already published there stay installed, and their origin keeps the registry URL <code className="[overflow-wrap:anywhere]">{settings.private.registryUrl}</code>; the registry itself is not touched.
            </>
          }
        >
          <Form method="post">
            <ConfirmButton name="intent" value="remove-private" variant="danger" title={`Remove the private destination ${settings.private.id}?`} description="Its sealed tokens are deleted. Extensions published there stay installed and keep their origin. This cannot be undone." confirmLabel="Remove">
              Remove private destination
            </ConfirmButton>
          </Form>
        </Card>
      ) : null}
    </>
  );
}
