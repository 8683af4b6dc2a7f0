export { createToolbox, type PeerAgent } from './toolbox.ts';
