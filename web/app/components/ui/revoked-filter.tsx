import { Form } from '@remix-run/react';
import { Button } from './button.tsx';
import { Field, inputClasses } from './field.tsx';

/** Which items a list shows: revoked ones are kept for the record, but out of the way unless asked for. */
export const REVOKED_SHOW = ['active', 'revoked', 'all'] as const;
export type RevokedShow = (typeof REVOKED_SHOW)[number];

/** The list's `show` query parameter; anything else is `active`. */
export const revokedShowOf = (request: Request): RevokedShow => REVOKED_SHOW.find((value) => value === new URL(request.url).searchParams.get('show')) ?? 'active';

/** The items `show` keeps, and how many are revoked in all (the filter names the count). */
export function byRevoked<T>(items: readonly T[], show: RevokedShow, isRevoked: (item: T) => boolean): { shown: T[]; revokedCount: number } {
  return { shown: items.filter((item) => show === 'all' || (show === 'revoked') === isRevoked(item)), revokedCount: items.filter(isRevoked).length };
}

/** The Show filter: a plain GET form, so it works without JavaScript. */
export function RevokedFilter({ id, label, show, revokedCount, options }: { id: string; label: string; show: RevokedShow; revokedCount: number; options: Record<RevokedShow, string> }) {
  return (
    <Form method="get" className="flex flex-wrap items-end gap-3" aria-label={label}>
      <Field id={id} label="Show" className="w-full sm:w-64">
        <select id={id} name="show" defaultValue={show} className={inputClasses}>
          <option value="active">{options.active}</option>
          <option value="revoked">
            {options.revoked} ({revokedCount})
          </option>
          <option value="all">{options.all}</option>
        </select>
      </Field>
      <Button type="submit" variant="secondary">
        Show
      </Button>
    </Form>
  );
}
