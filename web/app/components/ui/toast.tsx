import * as ToastPrimitive from '@radix-ui/react-toast';
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';

interface ToastMessage {
  id: number;
  title: string;
  description?: string;
}

const ToastContext = createContext<(message: Omit<ToastMessage, 'id'>) => void>(() => {});

/** Shows a short confirmation of something done in the browser (a copy, an answer sent). */
export const useToast = () => useContext(ToastContext);

export function Toaster({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<ToastMessage[]>([]);
  // The viewport's region carries an inline style, which the policy refuses in server HTML
  // (style-src has no 'unsafe-inline'); toasts only ever come from the browser anyway.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const show = useCallback((message: Omit<ToastMessage, 'id'>) => setMessages((current) => [...current.slice(-2), { ...message, id: Date.now() + Math.random() }]), []);
  return (
    <ToastContext.Provider value={show}>
      <ToastPrimitive.Provider swipeDirection="right" duration={4000}>
        {children}
        {messages.map((message) => (
          <ToastPrimitive.Root
            key={message.id}
            className="rounded-md border border-line bg-panel px-4 py-3 text-sm shadow-lg"
            onOpenChange={(open) => !open && setMessages((current) => current.filter((m) => m.id !== message.id))}
          >
            <ToastPrimitive.Title className="font-semibold">{message.title}</ToastPrimitive.Title>
            {message.description ? <ToastPrimitive.Description className="mt-1 text-muted">{message.description}</ToastPrimitive.Description> : null}
          </ToastPrimitive.Root>
        ))}
        {hydrated ? <ToastPrimitive.Viewport className="fixed right-0 bottom-0 z-50 m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4" /> : null}
      </ToastPrimitive.Provider>
    </ToastContext.Provider>
  );
}
