import { Form } from '@remix-run/react';
import { fieldsOf } from '~/forms/hitl-screen.ts';
import { Button } from './button.tsx';
import { Card } from './card.tsx';
import { Checkbox, Field, inputClasses } from './field.tsx';

/** Renders a HITL screen's JSON Schema as a form a local human can answer, with what the answer is about above it. */
export function HitlForm({ screenId, title, schema, context, busy }: { screenId: string; title: string; schema: Record<string, unknown>; context?: Record<string, string>; busy: boolean }) {
  const shown = Object.entries(context ?? {});
  return (
    <Card title={title} className="mb-6 border-warning/40">
      <Form method="post" aria-label={title} className="space-y-4">
        {shown.length ? (
          <section aria-label="What you are answering about" className="space-y-3">
            {shown.map(([stepId, text]) => (
              <div key={stepId}>
                <p className="mb-1 text-xs text-muted">
                  Output of step <code>{stepId}</code>
                </p>
                <pre className="max-h-96 overflow-auto rounded-md border border-line bg-canvas p-3 text-sm whitespace-pre-wrap [overflow-wrap:anywhere]" data-testid={`context-${stepId}`}>
                  {text}
                </pre>
              </div>
            ))}
          </section>
        ) : null}
        <input type="hidden" name="screenId" value={screenId} />
        <div className="grid gap-4 sm:grid-cols-2">
          {fieldsOf(schema).map((field) => (
            <FieldInput key={field.name} field={field} />
          ))}
        </div>
        <Button type="submit" busy={busy}>
          {busy ? 'Sending…' : 'Answer and continue'}
        </Button>
      </Form>
    </Card>
  );
}

function FieldInput({ field }: { field: ReturnType<typeof fieldsOf>[number] }) {
  const id = `field.${field.name}`;
  const label = `${field.title}${field.required ? ' *' : ''}`;
  if (field.type === 'boolean') return <Checkbox id={id} name={id} label={label} />;
  const control = field.options ? (
    <select id={id} name={id} required={field.required} className={inputClasses}>
      {field.options.map((o) => (
        <option key={o}>{o}</option>
      ))}
    </select>
  ) : field.type !== 'string' ? (
    <input id={id} name={id} type="number" step={field.type === 'integer' ? 1 : 'any'} required={field.required} className={inputClasses} />
  ) : field.multiline ? (
    <textarea id={id} name={id} rows={3} required={field.required} maxLength={field.maxLength} className={inputClasses} />
  ) : (
    <input id={id} name={id} required={field.required} maxLength={field.maxLength} className={inputClasses} />
  );
  return (
    <Field id={id} label={label} className={field.multiline ? 'sm:col-span-2' : undefined}>
      {control}
    </Field>
  );
}
