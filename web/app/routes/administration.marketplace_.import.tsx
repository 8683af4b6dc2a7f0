import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react';
import { IMPORT_LIMITS } from '@service/core/archive';
import { DomainError } from '@service/core/errors';
import { EMPTY_DRAFT, type DraftFields } from '@service/core/imports';
import { useMemo } from 'react';
import { Badge, Button, ButtonLink, Card, DataTable, Failure, FileField, FindingList, Notice, PageHeader, SelectField, ShownFiles, stateTone, Tabs, TextareaField, TextField, When } from '~/components/ui/index.ts';
import { chatForm, githubImportForm, zipImportForm } from '~/forms/imports.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { formAction } from '~/forms/action-result.server.ts';
import { readUploadForm, zipUpload } from '~/forms/upload-form.server.ts';

export const meta: MetaFunction = () => [{ title: 'Import an extension' }];

interface ChatState {
  fields: DraftFields;
  messages: { role: 'user' | 'assistant'; content: string }[];
  files: { name: string; text: string }[];
  findings: { path: string; reason: string }[];
}

const TABS = ['github', 'zip', 'chat'] as const;
type Tab = (typeof TABS)[number];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  return { jobs: await caller.imports.jobs(), limits: IMPORT_LIMITS, emptyDraft: EMPTY_DRAFT, llm: context.services.llm.name, scope: context.services.config.identity.vendorScope };
}

const parseJson = <T,>(value: string | undefined, fallback: T): T => {
  try {
    return value ? (JSON.parse(value) as T) : fallback;
  } catch {
    return fallback;
  }
};

export async function action({ request, context }: ActionFunctionArgs) {
  // A refusal before any form is read (an upload over the limit) is shown above the tabs.
  return formAction(async () => {
    const form = await readUploadForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const intent = String(form.get('intent') ?? '');
    if (intent === 'github') {
      return submitForm('github', form, githubImportForm, async (value) => {
        const { jobId } = await caller.imports.fromGithub({ url: value.url, ref: value.ref || undefined, folder: value.folder || undefined, updatePolicy: value.updatePolicy });
        return redirect(`/administration/imports/${jobId}`);
      });
    }
    if (intent === 'zip') {
      return submitForm('zip', form, zipImportForm(IMPORT_LIMITS.maxArchiveBytes), async () => {
        const zip = await zipUpload(form);
        if (!zip) throw new DomainError('VALIDATION_FAILED', 'Choose a .zip file.');
        const { jobId } = await caller.imports.fromZip(zip);
        return redirect(`/administration/imports/${jobId}`);
      });
    }
    return submitForm('chat', form, chatForm, async (value) => {
      const fields = parseJson<DraftFields>(value.fields, EMPTY_DRAFT);
      if (value.intent === 'chat-install') {
        const { jobId } = await caller.imports.fromChat({ fields });
        return redirect(`/administration/imports/${jobId}`);
      }
      const messages = [...parseJson<ChatState['messages']>(value.messages, []), { role: 'user' as const, content: value.message }];
      const turn = await caller.imports.chatTurn({ fields, messages });
      const chat: ChatState = { fields: turn.fields, messages: [...messages, { role: 'assistant', content: turn.reply || '(no reply)' }], files: turn.files, findings: turn.findings };
      return { chat };
    });
  });
}

function GithubImport() {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'github';
  const [form, fields] = useSchemaForm(githubImportForm, { id: 'github', lastResult: replyFor(result, 'github'), defaultValue: { updatePolicy: 'manual' } });
  return (
    <Card title="Import from GitHub" description="A public repository, or a folder in it, holding one package. Updates compare the ref again later.">
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <TextField meta={fields.url} type="url" label="Repository URL" placeholder="https://github.com/owner/repo" />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField meta={fields.ref} label="Branch, tag or commit" placeholder="default branch" />
          <TextField meta={fields.folder} label="Folder" placeholder="repository root" />
        </div>
        <SelectField
          meta={fields.updatePolicy}
          label="Updates"
          className="sm:max-w-md"
          options={[
            { value: 'manual', label: 'manual: I press Update' },
            { value: 'auto', label: 'auto: follow the ref in the background' },
          ]}
        />
        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, 'github')} />
        <Button type="submit" name="intent" value="github" busy={busy}>
          Import from GitHub
        </Button>
      </Form>
    </Card>
  );
}

function ZipImport({ limits }: { limits: typeof IMPORT_LIMITS }) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'zip';
  const schema = useMemo(() => zipImportForm(limits.maxArchiveBytes), [limits.maxArchiveBytes]);
  const [form, fields] = useSchemaForm(schema, { id: 'zip', lastResult: replyFor(result, 'zip') });
  const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
  return (
    <Card title="Import a zip file" description="A zip of one package folder, as downloaded from a repository or packed by hand.">
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="space-y-4">
        <FileField
          meta={fields.file}
          label="Zip file"
          accept=".zip,application/zip"
          help={`At most ${mib(limits.maxArchiveBytes)} MiB, ${limits.maxEntries} entries and ${mib(limits.maxUnpackedBytes)} MiB unpacked; no links.`}
        />
        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, 'zip')} />
        <Button type="submit" name="intent" value="zip" busy={busy}>
          Upload and import
        </Button>
      </Form>
    </Card>
  );
}

function ChatImport({ chat, emptyDraft, llm }: { chat: ChatState | null; emptyDraft: DraftFields; llm: string }) {
  const result = useActionData<typeof action>();
  const intent = useNavigation().formData?.get('intent');
  const [form, fields] = useSchemaForm(chatForm, { id: 'chat', lastResult: replyFor(result, 'chat') });
  return (
    <div className="space-y-6">
      <Card title="Draft with the assistant" description={`Describe the agent; the assistant (${llm}) drafts its package.json and flow.json. Nothing is saved until you install it.`}>
        {chat ? (
          <ol role="log" aria-label="Conversation" tabIndex={0} className="mb-4 max-h-[28rem] space-y-2 overflow-y-auto">
            {chat.messages.map((m, i) => (
              <li key={i} data-role={m.role} className={m.role === 'user' ? 'ml-6 rounded-md bg-accent-soft px-3 py-2 text-sm break-words whitespace-pre-wrap sm:ml-16' : 'mr-6 rounded-md border border-line bg-canvas px-3 py-2 text-sm break-words whitespace-pre-wrap sm:mr-16'}>
                <strong>{m.role === 'user' ? 'You' : 'Assistant'}:</strong> {m.content}
              </li>
            ))}
          </ol>
        ) : null}
        <Form method="post" {...getFormProps(form)} className="space-y-4">
          <input type="hidden" name="fields" value={JSON.stringify(chat?.fields ?? emptyDraft)} />
          <input type="hidden" name="messages" value={JSON.stringify(chat?.messages ?? [])} />
          {/* A new textarea after each turn: the message just sent is in the conversation above. */}
          <TextareaField key={chat?.messages.length ?? 0} meta={fields.message} label="Message" rows={4} placeholder='An agent that writes FAQ entries. set slug to "faq-writer"' />
          <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, 'chat')} />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" name="intent" value="chat-turn" busy={intent === 'chat-turn'}>
              Send
            </Button>
            {chat && chat.findings.length === 0 ? (
              <Button type="submit" name="intent" value="chat-install" variant="secondary" busy={intent === 'chat-install'}>
                Review and install
              </Button>
            ) : null}
          </div>
        </Form>
      </Card>
      {chat ? (
        <Card title="Drafted package">
          {chat.findings.length ? (
            <Notice tone="warning" role="status">
              Not ready yet:
              <FindingList findings={chat.findings} />
            </Notice>
          ) : (
            <Notice tone="success">The draft passes review.</Notice>
          )}
          <ShownFiles files={chat.files} />
        </Card>
      ) : null}
    </div>
  );
}

export default function ImportPage() {
  const { jobs, limits, emptyDraft, llm, scope } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  const chat: ChatState | null = result && 'chat' in result ? result.chat : null;
  // The tab of the form the last action answered, else the one the address names (?from=zip).
  const answered = result && 'form' in result ? result.form : chat ? 'chat' : null;
  const asked = params.get('from');
  const tab: Tab = TABS.find((t) => t === answered) ?? TABS.find((t) => t === asked) ?? 'github';
  return (
    <>
      <PageHeader
        title="Import an extension"
        description={
          <>
            Imported packages are compiled and reviewed like packages authored here: they must be named in <code>{scope}</code>. A license other than MIT, Apache-2.0, BSD-2-Clause, BSD-3-Clause or ISC (or none) must be acknowledged before install.
          </>
        }
        actions={<ButtonLink to="/administration/marketplace">Back to the marketplace</ButtonLink>}
      />
      <Failure failure={result && 'error' in result ? result : null} />
      <Tabs
        label="Ways to import"
        defaultValue={tab}
        tabs={[
          { value: 'github', label: 'From GitHub', content: <GithubImport /> },
          { value: 'zip', label: 'From a zip file', content: <ZipImport limits={limits} /> },
          { value: 'chat', label: 'From a chat', content: <ChatImport chat={chat} emptyDraft={emptyDraft} llm={llm} /> },
        ]}
      />
      <h2 className="mb-3">Recent imports</h2>
      <DataTable label="Recent imports" columns={['Package', 'Source', 'State', 'Started']} isEmpty={jobs.length === 0} empty="No imports yet.">
        {jobs.map((job) => (
          <tr key={job.id}>
            <td>
              <Link to={`/administration/imports/${job.id}`}>{job.staged?.packageName ?? job.url ?? 'chat draft'}</Link>
            </td>
            <td>{job.source}</td>
            <td>
              <Badge tone={stateTone(job.state)}>{job.state}</Badge>
            </td>
            <td>
              <When at={job.createdAt} />
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
