export { createSealer, keyIdOf, SealedSecretError, type Sealer, type MasterKeys } from './sealer.ts';
export { constantTimeEqual } from './constant-time.ts';
export { sha256Url } from './digest.ts';
