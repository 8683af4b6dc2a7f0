import { CMS_NAMES } from '~/admin-sections.ts';
import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, byRevoked, Card, ConfirmButton, Facts, Notice, PageHeader, RevokedFilter, revokedShowOf, ShownOnce, TextField } from '~/components/ui/index.ts';
import { widgetKeyForm, widgetSettingsForm } from '~/forms/assistants.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

/** One page per connector's widget, `/administration/assistants/<cms>-widget`. */
const PAGES = { 'cms-a-widget': { connector: 'cms_a', title: CMS_NAMES['cms-a-widget'] }, 'cms-b-widget': { connector: 'cms_b', title: CMS_NAMES['cms-b-widget'] } } as const;

function pageOf(param: string | undefined) {
  if (!param || !Object.hasOwn(PAGES, param)) throw new Response('No such assistant', { status: 404 });
  return PAGES[param as keyof typeof PAGES];
}

export const meta: MetaFunction = () => [{ title: 'Assistant' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const page = pageOf(params.page);
  const caller = await serverCaller(request, context.services);
  // Instances whose key was revoked (and none generated since) are out of the way.
  const show = revokedShowOf(request);
  const all = await caller.assistants.list({ connector: page.connector });
  const { shown: rows, revokedCount } = byRevoked(all, show, ({ widget }) => !!widget.revokedAt);
  return { page, connectorsPage: `/administration/connectors/${params.page}`, rows, show, instanceCount: all.length, revokedCount, llm: { provider: context.services.llm.name, model: context.services.llm.model } };
}

const actionForm = z.discriminatedUnion('intent', [widgetSettingsForm, widgetKeyForm]);
/** Key buttons sit on each instance's card; their refusals show above the page. */
const KEY_FORM = 'widget-key';
const settingsFormId = (instanceId: string) => `widget-settings-${instanceId}`;

export async function action({ request, context, params }: ActionFunctionArgs) {
  const page = pageOf(params.page);
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  const formId = form.get('intent') === 'configure' ? settingsFormId(String(form.get('instanceId') ?? '')) : KEY_FORM;
  return submitForm(formId, form, actionForm, async (value) => {
    const target = { connector: page.connector, instanceId: value.instanceId };
    switch (value.intent) {
      case 'rotate':
        return { key: { instanceId: value.instanceId, value: (await caller.assistants.rotateKey(target)).key } };
      case 'revoke':
        await caller.assistants.revokeKey(target);
        return { notice: `Widget key of ${value.instanceId} revoked: the widget on that site stops working until a new key is set. Revoked keys are listed under Show › Sites with a revoked key.` };
      case 'configure':
        await caller.assistants.configure({ ...target, allowedOrigins: value.allowedOrigins, historyTurns: value.historyTurns, assistantAgent: value.assistantAgent || null });
        return { notice: `Saved the widget settings of ${value.instanceId}.` };
    }
  });
}

interface Widget {
  siteOrigin: string;
  allowedOrigins: string[];
  historyTurns: number;
  assistantAgent: string | null;
  keySet: boolean;
  keyPrefix: string | null;
  revokedAt: string | null;
}

function WidgetSettingsForm({ instanceId, widget }: { instanceId: string; widget: Widget }) {
  const result = useActionData<typeof action>();
  const id = settingsFormId(instanceId);
  const submitting = useNavigation().formData;
  const busy = submitting?.get('intent') === 'configure' && submitting.get('instanceId') === instanceId;
  const [form, fields] = useSchemaForm(widgetSettingsForm, {
    id,
    lastResult: replyFor(result, id),
    defaultValue: { allowedOrigins: widget.allowedOrigins.filter((o) => o !== widget.siteOrigin).join(' '), historyTurns: String(widget.historyTurns), assistantAgent: widget.assistantAgent ?? '' },
  });
  return (
    <Form method="post" {...getFormProps(form)} className="space-y-4">
      <input type="hidden" name="instanceId" value={instanceId} />
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField meta={fields.allowedOrigins} label="Extra allowed origins" placeholder="https://preview.example.com" help="Origins besides the site’s own that may embed the widget, separated by spaces or commas." />
        <TextField meta={fields.historyTurns} type="number" label="History cap (turns)" help="How many earlier turns of a conversation go to the LLM." />
        <TextField meta={fields.assistantAgent} label="Assistant agent" placeholder="@acme/researcher" help="An agent installed here whose skills the assistant may call as tools, besides editing. Empty: editing only." />
      </div>
      <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, id)} />
      <Button type="submit" name="intent" value="configure" busy={busy}>
        Save
      </Button>
    </Form>
  );
}

export default function AssistantPage() {
  const { page, connectorsPage, rows, show, instanceCount, revokedCount, llm } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const keyReply = replyFor(result, KEY_FORM);
  const refused = keyReply?.error ? Object.values(keyReply.error).flatMap((errors) => errors ?? []) : [];
  return (
    <>
      <PageHeader
        title={`${page.title} assistants`}
        description={
          <>
            LLM: {llm.provider === 'scripted' ? 'scripted (offline, no model configured)' : `${llm.provider} · ${llm.model}`}. The widget key goes into the CMS-side settings; it only opens this assistant, never the MCP primitives.
          </>
        }
      />
      {llm.provider === 'scripted' ? (
        <Notice tone="warning" role="note">
          No LLM is configured: the assistant answers with scripted replies. Set <code>SERVICE_LLM_PROVIDER</code>, <code>SERVICE_LLM_BASE_URL</code>, <code>SERVICE_LLM_API_KEY</code> and <code>SERVICE_LLM_MODEL</code> in the service’s environment to use a model.
        </Notice>
      ) : null}
      {result && 'key' in result && result.key ? (
        <ShownOnce value={result.key.value} what="Widget key" testId="widget-key">
          New widget key for <code>{result.key.instanceId}</code> (shown once, copy it now):
        </ShownOnce>
      ) : null}
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      <FormErrors id="widget-key-errors" errors={refused.length ? refused : undefined} fix={fixFrom(result, KEY_FORM)} />
      {instanceCount === 0 ? (
        <Notice tone="info" role="note">
          No instance of this connector yet: the widget needs one. <Link to={connectorsPage}>Add an instance</Link>
        </Notice>
      ) : null}
      <div className="space-y-6">
        {instanceCount > 0 ? (
          <RevokedFilter id="widgets-show" label="Filter widget keys" show={show} revokedCount={revokedCount} options={{ active: 'Sites with a key or none yet', revoked: 'Sites with a revoked key', all: 'All sites' }} />
        ) : null}
        {instanceCount > 0 && rows.length === 0 ? <p className="text-sm text-muted">{show === 'revoked' ? 'No site has a revoked key.' : 'Every site’s key is revoked: choose “Sites with a revoked key” to generate a new one.'}</p> : null}
        {rows.map(({ instance, widget }) => (
          <Card key={instance.id} title={instance.name} description={<code>{instance.id}</code>}>
            <Facts
              className="mb-4"
              items={[
                ['Widget key', widget.keySet ? <code>{widget.keyPrefix}…</code> : widget.revokedAt ? <Badge tone="danger">revoked</Badge> : 'not set'],
                ['Site origin', <code className="[overflow-wrap:anywhere]">{widget.siteOrigin}</code>],
              ]}
            />
            <Form method="post" className="mb-6 flex flex-wrap gap-2">
              <input type="hidden" name="instanceId" value={instance.id} />
              {widget.keySet ? (
                <>
                  <ConfirmButton name="intent" value="rotate" title={`Rotate the widget key of ${instance.name}?`} description="A new key is issued and shown once; the old one stops working at once, so the CMS-side settings need the new key." confirmLabel="Rotate key">
                    Rotate key
                  </ConfirmButton>
                  <ConfirmButton name="intent" value="revoke" variant="danger" title={`Revoke the widget key of ${instance.name}?`} description="The widget on that site stops working until a new key is generated and entered there." confirmLabel="Revoke key">
                    Revoke key
                  </ConfirmButton>
                </>
              ) : (
                <Button type="submit" name="intent" value="rotate">
                  Generate key
                </Button>
              )}
            </Form>
            <WidgetSettingsForm instanceId={instance.id} widget={widget} />
          </Card>
        ))}
      </div>
    </>
  );
}
