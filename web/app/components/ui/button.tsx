import { Link, type LinkProps } from '@remix-run/react';
import { forwardRef, type ButtonHTMLAttributes } from 'react';
import { cn } from './cn.ts';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost' | 'link';
export type ButtonSize = 'sm' | 'md';

const VARIANTS: Record<ButtonVariant, string> = {
  primary: 'bg-accent text-white hover:bg-accent-strong',
  secondary: 'border border-accent bg-panel text-accent hover:bg-accent-soft',
  danger: 'bg-danger text-white hover:bg-danger/90',
  ghost: 'text-ink hover:bg-canvas',
  link: 'p-0 h-auto text-accent underline underline-offset-2 hover:no-underline',
};

const SIZES: Record<ButtonSize, string> = {
  // A minimum, not a fixed height: a long label wraps between its words instead of spilling out.
  // A small button (a row's action) keeps its label on one line, so a table never squeezes it.
  sm: 'min-h-8 px-3 py-1 text-sm whitespace-nowrap',
  md: 'min-h-10 px-4 py-2 text-sm',
};

/** The classes of a button, for elements that must look like one (a Link, a label). */
export function buttonClasses(variant: ButtonVariant = 'primary', size: ButtonSize = 'md', className?: string): string {
  return cn(
    'inline-flex shrink-0 cursor-pointer items-center justify-center gap-1.5 rounded-md font-medium no-underline [overflow-wrap:normal] transition-colors hover:no-underline disabled:cursor-not-allowed disabled:opacity-55',
    variant === 'link' ? '' : SIZES[size],
    VARIANTS[variant],
    className,
  );
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** While true the button is disabled and says so (`aria-busy`); its label is the caller's. */
  busy?: boolean;
}

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button({ variant = 'primary', size = 'md', busy, className, type = 'button', disabled, ...props }, ref) {
  return <button ref={ref} type={type} disabled={disabled || busy} aria-busy={busy || undefined} className={buttonClasses(variant, size, className)} {...props} />;
});

export function ButtonLink({ variant = 'secondary', size = 'md', className, ...props }: LinkProps & { variant?: ButtonVariant; size?: ButtonSize }) {
  return <Link className={buttonClasses(variant, size, className)} {...props} />;
}
