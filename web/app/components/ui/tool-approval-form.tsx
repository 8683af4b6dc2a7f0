import { Form } from '@remix-run/react';
import { Button } from './button.tsx';
import { Card } from './card.tsx';
import { inputClasses } from './field.tsx';

/** What a tool-call pause shows: the call an agent wants to make. */
export interface ToolCallShown {
  tool: string;
  kind: string;
  arguments: unknown;
  changes?: { field: string; before: unknown; after: unknown }[];
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/**
 * The approval of one tool call: the tool, its arguments and (for a content write) the fields it
 * would change; allow it as asked, allow it with changed arguments (JSON), or deny it saying why
 * (the agent is told).
 */
export function ToolApprovalForm({ screenId, title, call, busy }: { screenId: string; title: string; call: ToolCallShown; busy: boolean }) {
  return (
    <Card title={title} className="mb-6 border-warning/40">
      <Form method="post" aria-label={title} className="space-y-4">
        <input type="hidden" name="screenId" value={screenId} />
        <input type="hidden" name="approval" value="1" />
        <p>
          The agent wants to call <code>{call.tool}</code> ({call.kind === 'agent' ? 'an agent' : call.kind === 'mcp' ? 'a tool of an MCP server' : 'a connector primitive'}).
        </p>
        {call.changes?.length ? (
          <table aria-label="What it would change" className="w-full text-sm">
            <thead>
              <tr>
                <th className="text-left">Field</th>
                <th className="text-left">Now</th>
                <th className="text-left">After the call</th>
              </tr>
            </thead>
            <tbody>
              {call.changes.map((change) => (
                <tr key={change.field}>
                  <td>
                    <code>{change.field}</code>
                  </td>
                  <td className="break-words whitespace-pre-wrap">{shown(change.before)}</td>
                  <td className="break-words whitespace-pre-wrap">{shown(change.after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <div>
          <label htmlFor="approval-arguments" className="mb-1 block text-sm font-medium">
            Arguments (JSON; change them to allow the call with other values)
          </label>
          <textarea id="approval-arguments" name="arguments" rows={6} defaultValue={JSON.stringify(call.arguments ?? {}, null, 2)} className={`${inputClasses} font-mono text-xs`} />
        </div>
        <div>
          <label htmlFor="approval-reason" className="mb-1 block text-sm font-medium">
            Why not (told to the agent when you deny the call)
          </label>
          <input id="approval-reason" name="reason" maxLength={2000} className={inputClasses} />
        </div>
        <div className="flex flex-wrap gap-3">
          <Button type="submit" name="decision" value="allow" busy={busy}>
            Allow the call
          </Button>
          <Button type="submit" name="decision" value="deny" variant="danger" busy={busy}>
            Deny it
          </Button>
        </div>
      </Form>
    </Card>
  );
}
