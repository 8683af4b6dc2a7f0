import { Form } from '@remix-run/react';
import { fieldsOf } from './hitl-form.ts';

/** Renders a HITL screen's JSON Schema as a form a local human can answer. */
export function HitlForm({ screenId, title, schema, context, busy }: { screenId: string; title: string; schema: Record<string, unknown>; context?: Record<string, string>; busy: boolean }) {
  const shown = Object.entries(context ?? {});
  return (
    <Form method="post" aria-label={title}>
      <fieldset>
        <legend>{title}</legend>
        {shown.length ? (
          <section aria-label="What you are answering about">
            {shown.map(([stepId, text]) => (
              <div key={stepId}>
                <p className="hint">
                  Output of step <code>{stepId}</code>
                </p>
                <pre className="file" data-testid={`context-${stepId}`}>
                  {text}
                </pre>
              </div>
            ))}
          </section>
        ) : null}
        <input type="hidden" name="screenId" value={screenId} />
        <div className="form-grid">
          {fieldsOf(schema).map((field) => (
            <FieldInput key={field.name} field={field} />
          ))}
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Sending…' : 'Answer and continue'}
        </button>
      </fieldset>
    </Form>
  );
}

function FieldInput({ field }: { field: ReturnType<typeof fieldsOf>[number] }) {
  const id = `field.${field.name}`;
  const label = (
    <label htmlFor={id}>
      {field.title}
      {field.required ? ' *' : ''}
    </label>
  );
  if (field.type === 'boolean') return (<>{label}<input id={id} name={id} type="checkbox" /></>);
  if (field.options) {
    return (
      <>
        {label}
        <select id={id} name={id} required={field.required}>
          {field.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      </>
    );
  }
  if (field.type !== 'string') return (<>{label}<input id={id} name={id} type="number" step={field.type === 'integer' ? 1 : 'any'} required={field.required} /></>);
  return field.multiline ? (<>{label}<textarea id={id} name={id} rows={3} required={field.required} /></>) : (<>{label}<input id={id} name={id} required={field.required} /></>);
}
