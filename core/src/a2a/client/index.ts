export { createA2aClient, type A2aClient, type RemoteEvent } from './a2a-client.ts';
export { createRemotePeers, type RemotePeers, type RemotePeerView } from './peers.ts';
export { createRemoteBridge, type RemoteBridge } from './remote-bridge.ts';
export { readSse, type SseMessage } from './sse-reader.ts';
export { callRemoteAgent, peerAgentOf } from './remote-agent.ts';
