import { Fragment } from 'react';
import { cn } from './cn.ts';

/** Longer than any name: a hash, a token, a pasted blob or a long URL, which may break anywhere. */
const BLOB = /\S{41,}/;

/**
 * How a value wraps: a name breaks only at its separators (never inside a word); a blob, which
 * nothing fits, anywhere.
 */
export function wrapClass(text: string): string {
  return BLOB.test(text) ? '[overflow-wrap:anywhere]' : '[overflow-wrap:break-word]';
}

/**
 * A name (package name, email, id, URL): it may wrap after `/`, `@`, `.`, `-`, `_` or `:` and
 * nowhere else, so a narrow column shows `@tour/` `editorial-review`, never `edito` `rial`.
 */
export function Name({ children, className, code }: { children: string; className?: string; code?: boolean }) {
  const parts = children.split(/(?<=[/@.\-_:])/);
  const Tag = code ? 'code' : 'span';
  return (
    <Tag className={cn(wrapClass(children), className)}>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </Tag>
  );
}
