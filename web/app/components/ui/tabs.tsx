import * as TabsPrimitive from '@radix-ui/react-tabs';
import { useEffect, useId, useState, type ReactNode } from 'react';

/**
 * Panels of one page chosen by tabs. Without JavaScript (and in the server's HTML) every panel
 * shows, one after the other, and each still works; the tab list appears once the page is
 * hydrated, since only then can it switch. The panels are this component's own elements, not
 * Radix's: Radix puts inline styles on its list and first panel, which the Content-Security-Policy
 * refuses in server HTML (style-src has no 'unsafe-inline'). Hidden panels stay mounted, so what
 * was typed in one survives a switch.
 */
export function Tabs({ label, defaultValue, tabs }: { label: string; defaultValue: string; tabs: { value: string; label: string; content: ReactNode }[] }) {
  const id = useId();
  const [value, setValue] = useState(defaultValue);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <TabsPrimitive.Root value={value} onValueChange={setValue}>
      {hydrated ? (
        <TabsPrimitive.List aria-label={label} className="mb-4 flex gap-1 overflow-x-auto border-b border-line">
          {tabs.map((tab) => (
            <TabsPrimitive.Trigger
              key={tab.value}
              value={tab.value}
              id={`${id}-tab-${tab.value}`}
              aria-controls={`${id}-panel-${tab.value}`}
              className="-mb-px cursor-pointer border-b-2 border-transparent px-3 py-2 text-sm font-medium whitespace-nowrap text-muted data-[state=active]:border-accent data-[state=active]:text-ink"
            >
              {tab.label}
            </TabsPrimitive.Trigger>
          ))}
        </TabsPrimitive.List>
      ) : null}
      {tabs.map((tab) => (
        <div
          key={tab.value}
          id={`${id}-panel-${tab.value}`}
          role={hydrated ? 'tabpanel' : undefined}
          aria-labelledby={hydrated ? `${id}-tab-${tab.value}` : undefined}
          tabIndex={hydrated ? 0 : undefined}
          hidden={hydrated && tab.value !== value}
          className="mb-6 min-w-0"
        >
          {tab.content}
        </div>
      ))}
    </TabsPrimitive.Root>
  );
}
