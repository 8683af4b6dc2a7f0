import { z } from 'zod';

/**
 * Field schemas the admin forms share with the tRPC procedures behind them, each refusing in
 * plain words. Conform derives `required`, `maxLength` and `pattern` from them, and the server
 * parses the same schema, so browser and server cannot disagree about a limit.
 *
 * `schemas/` is the one place both sides import from (ADR 0025): a procedure never imports a
 * form (`forms/`) or a component. Client-safe: bundled into the browser, so nothing here
 * imports core, React or Remix.
 */

/** The refusal of a text over its limit, in plain words: "Shorten the name to 100 characters or fewer." */
export function tooLong(what: string, max: number): string {
  return `Shorten ${what.replace(/^(a|an|the)\s+/, 'the ')} to ${max} characters or fewer.`;
}

/** A required one-line text: trimmed, then 1..max characters. */
export function requiredText(what: string, max: number) {
  return z.string({ error: `Enter ${what}.` }).trim().min(1, `Enter ${what}.`).max(max, tooLong(what, max));
}

/** An optional one-line text: empty means absent. */
export function optionalText(what: string, max: number) {
  return z.string().trim().max(max, tooLong(what, max)).optional();
}

/** An http(s) URL of at most 500 characters (a registry, a peer, a CMS site). */
export function httpUrl(what: string) {
  return z
    .string({ error: `Enter ${what}.` })
    .trim()
    .max(500, tooLong(what, 500))
    .regex(/^https?:\/\/\S+$/, `Enter ${what} starting with https:// (or http:// on this machine).`);
}

/** A lower-case id: a letter or digit first, then letters, digits and hyphens. */
export function slugId(what: string, max = 63) {
  return z
    .string({ error: `Enter ${what}.` })
    .trim()
    .max(max, tooLong(what, max))
    .regex(/^[a-z0-9](?:[a-z0-9]|-)*$/, `Use lower-case letters, digits and hyphens for ${what}, starting with a letter or digit.`);
}

/** A checkbox: present ("on") or absent. */
export const checkbox = z
  .string()
  .optional()
  .transform((value) => value === 'on');

/** A comma- or space-separated list typed into one field. */
export function listOf(what: string, maxItems: number, maxItem: number) {
  return z
    .string()
    .trim()
    .max(maxItems * (maxItem + 2), `The list of ${what} is too long.`)
    .optional()
    .transform((value) => (value ?? '').split(/[\s,]+/).filter(Boolean))
    .pipe(z.array(z.string().max(maxItem, `Each of the ${what} has at most ${maxItem} characters.`)).max(maxItems, `List at most ${maxItems} ${what}.`));
}
