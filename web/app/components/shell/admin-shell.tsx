import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Form, Link, NavLink, useLocation } from '@remix-run/react';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import type { NavEntry, NavLinkItem } from '~/admin-sections.ts';
import { cn } from '../ui/cn.ts';
import { NavIcon } from './nav-icon.tsx';

const ENTRY = 'flex items-center gap-2 rounded-md px-3 py-2 text-sm text-ink no-underline hover:bg-canvas hover:no-underline';

function EntryLink({ item, className, children }: { item: NavLinkItem; className?: string; children: ReactNode }) {
  if (item.anchor) {
    return (
      <Link to={item.to} className={cn(ENTRY, className)}>
        {children}
      </Link>
    );
  }
  return (
    <NavLink to={item.to} end={item.end ?? false} className={({ isActive }) => cn(ENTRY, className, isActive && 'bg-accent-soft font-semibold text-accent-strong')}>
      {children}
    </NavLink>
  );
}

/** The navigation: single pages with their icon, and groups whose heading labels their list. */
function NavLinks({ entries }: { entries: NavEntry[] }) {
  const id = useId();
  return (
    <nav aria-label="Administration">
      <ul className="space-y-3">
        {entries.map((entry) =>
          'link' in entry ? (
            <li key={entry.link.to}>
              <EntryLink item={entry.link}>
                <NavIcon name={entry.icon} />
                {entry.link.label}
              </EntryLink>
            </li>
          ) : (
            <li key={entry.group}>
              <p id={`${id}-${entry.icon}`} className="flex items-center gap-2 px-3 pb-1 text-xs font-semibold tracking-wide text-muted uppercase">
                <NavIcon name={entry.icon} />
                {entry.group}
              </p>
              <ul aria-labelledby={`${id}-${entry.icon}`} className="space-y-0.5">
                {entry.links.map((item) => (
                  <li key={item.to}>
                    <EntryLink item={item} className="pl-9">
                      {item.label}
                    </EntryLink>
                  </li>
                ))}
              </ul>
            </li>
          ),
        )}
      </ul>
    </nav>
  );
}

function AccountMenu({ email }: { email: string }) {
  const signOut = useRef<HTMLFormElement>(null);
  return (
    <>
      <Form method="post" action="/sign-out" ref={signOut} className="hidden" />
      <DropdownMenu.Root>
        <DropdownMenu.Trigger className="max-w-[14rem] cursor-pointer truncate rounded-md px-2 py-1 text-sm text-muted hover:bg-canvas" aria-label={`Account: ${email}`}>
          {email} ▾
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content align="end" sideOffset={4} className="z-50 min-w-[12rem] rounded-md border border-line bg-panel p-1 text-sm shadow-lg">
            <DropdownMenu.Label className="px-2 py-1.5 text-xs text-muted">Signed in as {email}</DropdownMenu.Label>
            <DropdownMenu.Item className="cursor-pointer rounded px-2 py-1.5 outline-none data-[highlighted]:bg-accent-soft" onSelect={() => signOut.current?.requestSubmit()}>
              Sign out
            </DropdownMenu.Item>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </>
  );
}

/**
 * The admin frame: a top bar with the product, the instance scope and the account; the
 * navigation as a sidebar from `lg`, below that behind a Menu disclosure (a `<details>`, so it
 * opens without JavaScript; closed again on every navigation).
 */
export function AdminShell({ productName, vendorScope, email, entries, children }: { productName: string; vendorScope: string; email: string; entries: NavEntry[]; children: ReactNode }) {
  const menu = useRef<HTMLDetailsElement>(null);
  const location = useLocation();
  useEffect(() => {
    if (menu.current) menu.current.open = false;
  }, [location.pathname, location.search, location.hash]);
  return (
    <div className="min-h-screen">
      <header className="sticky top-0 z-30 flex items-center justify-between gap-2 border-b border-line bg-panel/95 px-3 py-2 backdrop-blur sm:px-6">
        <div className="flex min-w-0 items-center gap-2">
          <details ref={menu} className="group lg:hidden">
            <summary className="flex cursor-pointer list-none items-center gap-1.5 rounded-md border border-line px-3 py-1.5 text-sm [&::-webkit-details-marker]:hidden">
              <svg className="size-4" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" aria-hidden="true" focusable="false">
                <path d="M4 6h16M4 12h16M4 18h16" />
              </svg>
              Menu
            </summary>
            <div className="absolute inset-x-0 top-full max-h-[calc(100dvh-3.5rem)] overflow-y-auto border-b border-line bg-panel p-3 shadow-xl">
              <NavLinks entries={entries} />
            </div>
          </details>
          <div className="flex min-w-0 flex-col leading-tight sm:flex-row sm:items-center sm:gap-2">
            <Link to="/administration" className="truncate font-semibold text-ink no-underline hover:no-underline">
              {productName}
            </Link>
            <span className="truncate text-xs text-muted">
              <span className="sr-only">Instance scope: </span>
              <code title="Instance scope">{vendorScope}</code>
            </span>
          </div>
        </div>
        <AccountMenu email={email} />
      </header>
      <div className="lg:grid lg:grid-cols-[15rem_minmax(0,1fr)]">
        <aside className="hidden border-r border-line bg-panel p-3 lg:block">
          <NavLinks entries={entries} />
        </aside>
        <main className="mx-auto w-full max-w-6xl min-w-0 px-3 py-6 sm:px-6">{children}</main>
      </div>
    </div>
  );
}
