export { findFreePort, canConnect, isPortFree } from './free-port.ts';
