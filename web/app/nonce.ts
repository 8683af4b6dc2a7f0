import { createContext, useContext } from 'react';

/**
 * The CSP nonce of the response being rendered (server only: browsers hide a nonce from the
 * page once parsed, so on the client it is undefined and nothing needs it).
 */
export const NonceContext = createContext<string | undefined>(undefined);

export const useNonce = () => useContext(NonceContext);
