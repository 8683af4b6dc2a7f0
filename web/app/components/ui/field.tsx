import { getInputProps, getSelectProps, getTextareaProps, type FieldMetadata } from '@conform-to/react';
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import { cn } from './cn.ts';

export const inputClasses = 'block w-full min-w-0 rounded-md border border-line bg-panel px-3 py-2 text-sm text-ink placeholder:text-muted/70 aria-[invalid=true]:border-danger disabled:opacity-60';

/**
 * A labelled control with its help text and its error next to it. The control is the caller's
 * child; `id`, `helpId` and `errorId` tie label, help and error to it for assistive technology.
 */
export function Field({ id, label, help, errors, errorId, helpId, children, className }: { id: string; label: ReactNode; help?: ReactNode; errors?: string[] | undefined; errorId?: string; helpId?: string; children: ReactNode; className?: string }) {
  return (
    <div className={cn('min-w-0', className)}>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {children}
      {help ? (
        <p id={helpId ?? `${id}-help`} className="mt-1 text-xs text-muted">
          {help}
        </p>
      ) : null}
      {errors?.length ? (
        <p id={errorId ?? `${id}-error`} className="mt-1 text-sm text-danger" data-field-error>
          {errors.join(' ')}
        </p>
      ) : null}
    </div>
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any form may hold the field
export type FieldMeta = FieldMetadata<unknown, any, string[]>;
type Meta = FieldMeta;

/**
 * The ARIA state of a control bound to a Conform field: invalid while it has errors, and
 * described only by what is shown (Conform points at ids that may not be rendered).
 */
export function fieldAria(meta: Meta, help: ReactNode): { 'aria-invalid': true | undefined; 'aria-describedby': string | undefined } {
  const ids = [help ? meta.descriptionId : null, meta.errors?.length ? meta.errorId : null].filter(Boolean);
  return { 'aria-invalid': meta.errors?.length ? true : undefined, 'aria-describedby': ids.length ? ids.join(' ') : undefined };
}

/**
 * A text input bound to a Conform field: `required`, `maxLength`, `pattern` come from the form's
 * zod schema. `id` replaces Conform's generated one where a page's controls keep fixed ids.
 */
export function TextField({ meta, id, label, help, type = 'text', className, ...props }: { meta: Meta; id?: string; label: ReactNode; help?: ReactNode; type?: 'text' | 'url' | 'email' | 'password' | 'search' | 'number' | 'datetime-local'; className?: string } & Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'name' | 'id'>) {
  const { key, ...inputProps } = getInputProps(meta, { type, ariaAttributes: false });
  return (
    <Field id={id ?? meta.id} label={label} help={help} errors={meta.errors} errorId={meta.errorId} helpId={meta.descriptionId} className={className}>
      <input key={key} {...inputProps} id={id ?? meta.id} {...fieldAria(meta, help)} className={inputClasses} {...props} />
    </Field>
  );
}

export function TextareaField({ meta, label, help, className, ...props }: { meta: Meta; label: ReactNode; help?: ReactNode; className?: string } & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'name' | 'id'>) {
  return (
    <Field id={meta.id} label={label} help={help} errors={meta.errors} errorId={meta.errorId} helpId={meta.descriptionId} className={className}>
      <textarea {...getTextareaProps(meta, { ariaAttributes: false })} {...fieldAria(meta, help)} className={inputClasses} {...props} />
    </Field>
  );
}

export function SelectField({ meta, id, label, help, options, className, ...props }: { meta: Meta; id?: string; label: ReactNode; help?: ReactNode; options: { value: string; label: string }[]; className?: string } & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'name' | 'id'>) {
  const { key, ...selectProps } = getSelectProps(meta, { ariaAttributes: false });
  return (
    <Field id={id ?? meta.id} label={label} help={help} errors={meta.errors} errorId={meta.errorId} helpId={meta.descriptionId} className={className}>
      <select key={key} {...selectProps} id={id ?? meta.id} {...fieldAria(meta, help)} className={inputClasses} {...props}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A file input bound to a Conform field (a zip upload); what it takes is the caller's `accept`. */
export function FileField({ meta, label, help, accept, className }: { meta: Meta; label: ReactNode; help?: ReactNode; accept: string; className?: string }) {
  // A file has no length: Conform's maxLength (from the schema's size cap) is not an input limit here.
  const { key, maxLength: _maxLength, ...fileProps } = getInputProps(meta, { type: 'file', ariaAttributes: false });
  return (
    <Field id={meta.id} label={label} help={help} errors={meta.errors} errorId={meta.errorId} helpId={meta.descriptionId} className={className}>
      <input key={key} {...fileProps} accept={accept} {...fieldAria(meta, help)} className={cn(inputClasses, 'cursor-pointer file:mr-3 file:rounded file:border-0 file:bg-accent-soft file:px-2 file:py-1 file:text-accent-strong')} />
    </Field>
  );
}

/** A checkbox with its label beside it (a permission, "clear this token"). */
export function Checkbox({ label, className, ...props }: { label: ReactNode; className?: string } & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  return (
    <label className={cn('inline-flex items-center gap-2 text-sm', className)}>
      <input type="checkbox" className="size-4 accent-accent" {...props} />
      {label}
    </label>
  );
}

/** Related fields under one caption; fields stack on a phone and sit two abreast from `sm`. */
export function FieldGroup({ legend, description, children, className }: { legend?: ReactNode; description?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <fieldset className={cn('min-w-0 space-y-4', className)}>
      {legend ? <legend className="mb-2 text-base font-semibold">{legend}</legend> : null}
      {description ? <p className="text-sm text-muted">{description}</p> : null}
      {children}
    </fieldset>
  );
}
