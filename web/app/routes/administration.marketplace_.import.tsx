import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { IMPORT_LIMITS } from '@service/core/archive';
import { DomainError } from '@service/core/errors';
import { EMPTY_DRAFT, type DraftFields } from '@service/core/imports';
import { serverCaller } from '~/trpc/handler.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure, FindingList } from '~/ui/Failure.tsx';
import { readUploadForm, zipUpload } from '~/ui/upload-form.server.ts';
import { ShownFiles } from '~/ui/JobSteps.tsx';
import { When } from '~/ui/When.tsx';

export const meta: MetaFunction = () => [{ title: 'Import an extension' }];

interface ChatState {
  fields: DraftFields;
  messages: { role: 'user' | 'assistant'; content: string }[];
  files: { name: string; text: string }[];
  findings: { path: string; reason: string }[];
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  return { jobs: await caller.imports.jobs(), limits: IMPORT_LIMITS, emptyDraft: EMPTY_DRAFT, llm: context.services.llm.name, scope: context.services.config.identity.vendorScope };
}

const parseJson = <T,>(value: FormDataEntryValue | null, fallback: T): T => {
  try {
    return typeof value === 'string' && value ? (JSON.parse(value) as T) : fallback;
  } catch {
    return fallback;
  }
};

export async function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readUploadForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const intent = form.get('intent');
    if (intent === 'github') {
      const { jobId } = await caller.imports.fromGithub({
        url: String(form.get('url') ?? ''),
        ref: String(form.get('ref') ?? '') || undefined,
        folder: String(form.get('folder') ?? '') || undefined,
        updatePolicy: form.get('updatePolicy') === 'auto' ? 'auto' : 'manual',
      });
      return redirect(`/administration/imports/${jobId}`);
    }
    if (intent === 'zip') {
      const zip = await zipUpload(form);
      if (!zip) throw new DomainError('VALIDATION_FAILED', 'choose a .zip file to upload', { details: [{ path: 'file', reason: 'required' }] });
      const { jobId } = await caller.imports.fromZip(zip);
      return redirect(`/administration/imports/${jobId}`);
    }
    const fields = parseJson<DraftFields>(form.get('fields'), EMPTY_DRAFT);
    if (intent === 'chat-install') {
      const { jobId } = await caller.imports.fromChat({ fields });
      return redirect(`/administration/imports/${jobId}`);
    }
    const message = String(form.get('message') ?? '').trim();
    if (!message) throw new DomainError('VALIDATION_FAILED', 'write what the agent should do', { details: [{ path: 'message', reason: 'required' }] });
    const messages = [...parseJson<ChatState['messages']>(form.get('messages'), []), { role: 'user' as const, content: message }];
    const turn = await caller.imports.chatTurn({ fields, messages });
    const chat: ChatState = { fields: turn.fields, messages: [...messages, { role: 'assistant', content: turn.reply || '(no reply)' }], files: turn.files, findings: turn.findings };
    return { chat };
  });
}

export default function ImportPage() {
  const { jobs, limits, emptyDraft, llm, scope } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const chat: ChatState | null = result && 'chat' in result ? result.chat : null;
  const busy = navigation.state !== 'idle';
  return (
    <>
      <h1>Import an extension</h1>
      <p className="hint">
        Imported packages are compiled and reviewed like packages authored here: they must be named in {scope}. A license other than MIT, Apache-2.0, BSD-2-Clause,
        BSD-3-Clause or ISC (or none) must be acknowledged before install. <Link to="/administration/marketplace">Back to the marketplace</Link>
      </p>
      <Failure failure={result && 'error' in result ? result : null} />

      <fieldset>
        <legend>From GitHub</legend>
        <Form method="post" className="form-grid" aria-label="Import from GitHub">
          <label htmlFor="url">Repository URL</label>
          <input id="url" name="url" type="url" required placeholder="https://github.com/owner/repo" />
          <label htmlFor="ref">Branch, tag or commit</label>
          <input id="ref" name="ref" placeholder="default branch" />
          <label htmlFor="folder">Folder</label>
          <input id="folder" name="folder" placeholder="repository root" />
          <label htmlFor="updatePolicy">Updates</label>
          <select id="updatePolicy" name="updatePolicy" defaultValue="manual">
            <option value="manual">manual: I press Update</option>
            <option value="auto">auto: follow the ref in the background</option>
          </select>
          <span />
          <button type="submit" name="intent" value="github" disabled={busy}>
            Import from GitHub
          </button>
        </Form>
      </fieldset>

      <fieldset>
        <legend>From a zip file</legend>
        <Form method="post" encType="multipart/form-data" className="form-grid" aria-label="Import from a zip file">
          <label htmlFor="file">Zip file</label>
          <input id="file" name="file" type="file" accept=".zip,application/zip" required />
          <span />
          <span className="hint">
            At most {Math.round(limits.maxArchiveBytes / 1024 / 1024)} MiB, {limits.maxEntries} entries and {Math.round(limits.maxUnpackedBytes / 1024 / 1024)} MiB unpacked; no links.
          </span>
          <span />
          <button type="submit" name="intent" value="zip" disabled={busy}>
            Upload and import
          </button>
        </Form>
      </fieldset>

      <fieldset>
        <legend>From a chat</legend>
        <p className="hint">Describe the agent; the assistant ({llm}) drafts its package.json and flow.json. Nothing is saved until you install it.</p>
        {chat ? (
          <ul className="chat-log" role="log" aria-label="Conversation">
            {chat.messages.map((m, i) => (
              <li key={i} data-role={m.role}>
                <strong>{m.role === 'user' ? 'You' : 'Assistant'}:</strong> {m.content}
              </li>
            ))}
          </ul>
        ) : null}
        <Form method="post" aria-label="Chat">
          <input type="hidden" name="fields" value={JSON.stringify(chat?.fields ?? emptyDraft)} />
          <input type="hidden" name="messages" value={JSON.stringify(chat?.messages ?? [])} />
          <label htmlFor="message">Message</label>
          <textarea id="message" name="message" rows={4} placeholder='An agent that writes FAQ entries. set slug to "faq-writer"' />
          <div className="row-actions">
            <button type="submit" name="intent" value="chat-turn" disabled={busy}>
              Send
            </button>
            {chat && chat.findings.length === 0 ? (
              <button type="submit" name="intent" value="chat-install" className="secondary" disabled={busy}>
                Review and install
              </button>
            ) : null}
          </div>
        </Form>
        {chat ? (
          <section aria-label="Drafted package">
            <h3>Drafted files</h3>
            <ShownFiles files={chat.files} />
            {chat.findings.length ? (
              <div className="hint" role="status">
                Not ready yet:
                <FindingList findings={chat.findings} />
              </div>
            ) : (
              <p className="notice" role="status">
                The draft passes review.
              </p>
            )}
          </section>
        ) : null}
      </fieldset>

      <h2>Recent imports</h2>
      {jobs.length ? (
        <table aria-label="Recent imports">
          <tbody>
            {jobs.map((job) => (
              <tr key={job.id}>
                <td>
                  <Link to={`/administration/imports/${job.id}`}>{job.staged?.packageName ?? job.url ?? 'chat draft'}</Link>
                </td>
                <td>{job.source}</td>
                <td>{job.state}</td>
                <td>
                  <When at={job.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">No imports yet.</p>
      )}
    </>
  );
}
