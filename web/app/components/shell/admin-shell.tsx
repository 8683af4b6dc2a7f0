import * as Dialog from '@radix-ui/react-dialog';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Form, NavLink, useLocation } from '@remix-run/react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { cn } from '../ui/cn.ts';

export interface NavSection {
  to: string;
  label: string;
  end?: boolean;
}

function NavLinks({ sections }: { sections: NavSection[] }) {
  return (
    <nav aria-label="Administration">
      <ul className="space-y-0.5">
        {sections.map((section) => (
          <li key={section.to}>
            <NavLink
              to={section.to}
              end={section.end ?? false}
              className={({ isActive }) => cn('block rounded-md px-3 py-2 text-sm text-ink no-underline hover:bg-canvas hover:no-underline', isActive && 'bg-accent-soft font-semibold text-accent-strong')}
            >
              {section.label}
            </NavLink>
          </li>
        ))}
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
 * The admin frame: a sidebar from `lg`, below that a top bar whose Menu button opens the
 * navigation as a sheet (closed again on every navigation).
 */
export function AdminShell({ productName, email, sections, children }: { productName: string; email: string; sections: NavSection[]; children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  useEffect(() => setMenuOpen(false), [location.pathname, location.search]);
  return (
    <div className="min-h-screen lg:grid lg:grid-cols-[15rem_minmax(0,1fr)]">
      <aside className="hidden border-r border-line bg-panel p-3 lg:block">
        <p className="mb-3 px-3 py-2 font-semibold">{productName}</p>
        <NavLinks sections={sections} />
      </aside>
      <div className="min-w-0">
        <header className="sticky top-0 z-30 flex items-center justify-between gap-2 border-b border-line bg-panel/95 px-3 py-2 backdrop-blur sm:px-6">
          <div className="flex min-w-0 items-center gap-2">
            <Dialog.Root open={menuOpen} onOpenChange={setMenuOpen}>
              <Dialog.Trigger className="cursor-pointer rounded-md border border-line px-3 py-1.5 text-sm lg:hidden">Menu</Dialog.Trigger>
              <Dialog.Portal>
                <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 lg:hidden" />
                <Dialog.Content className="fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] overflow-y-auto bg-panel p-3 shadow-xl lg:hidden">
                  <div className="mb-3 flex items-center justify-between px-3">
                    <Dialog.Title className="font-semibold">{productName}</Dialog.Title>
                    <Dialog.Close className="cursor-pointer rounded-md px-2 py-1 text-sm hover:bg-canvas" aria-label="Close the menu">
                      ✕
                    </Dialog.Close>
                  </div>
                  <Dialog.Description className="sr-only">Administration sections</Dialog.Description>
                  <NavLinks sections={sections} />
                </Dialog.Content>
              </Dialog.Portal>
            </Dialog.Root>
            <span className="truncate font-semibold lg:hidden">{productName}</span>
          </div>
          <AccountMenu email={email} />
        </header>
        <main className="mx-auto w-full max-w-6xl min-w-0 px-3 py-6 sm:px-6">{children}</main>
      </div>
    </div>
  );
}
