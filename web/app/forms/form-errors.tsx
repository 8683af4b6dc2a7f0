import { FixLink, Notice } from '~/components/ui/index.ts';

/** A form's own errors (not tied to one field), with a link to the page that fixes a configuration error. */
export function FormErrors({ id, errors, fix }: { id: string; errors: string[] | undefined; fix?: { to: string; label: string } | null }) {
  if (!errors?.length) return null;
  return (
    <Notice tone="danger" className="mt-2">
      <div id={id}>
        {errors.map((error) => (
          <p key={error}>{error}</p>
        ))}
      </div>
      <FixLink fix={fix} />
    </Notice>
  );
}
