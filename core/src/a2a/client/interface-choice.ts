import type { Wire } from '../protocol-v1.ts';

/** The bindings the outbound client has a transport for. gRPC is not one of them: ADR 0035. */
export type ClientBinding = 'JSONRPC' | 'HTTP+JSON';
export type ClientProtocol = '1.0' | '0.3';

/** One interface a peer's card offers, as the client reads it. `field` names it in the card, for refusals. */
export interface PeerInterface {
  url: unknown;
  binding: string;
  protocol: ClientProtocol | null;
  field: string;
}

export interface ChosenInterface {
  url: string;
  binding: ClientBinding;
  protocol: ClientProtocol;
}

/** What the client speaks: JSON-RPC in 1.0 and 0.3, HTTP+JSON in 1.0 only (its 0.3 shapes differ and are not implemented). */
function speaks(binding: string, protocol: ClientProtocol | null): binding is ClientBinding {
  if (binding === 'JSONRPC') return protocol === '1.0' || protocol === '0.3';
  if (binding === 'HTTP+JSON') return protocol === '1.0';
  return false;
}

const protocolOf = (version: unknown): ClientProtocol | null => (/^1\./.test(String(version ?? '')) ? '1.0' : /^0\.3(\.|$)/.test(String(version ?? '')) ? '0.3' : null);
const bindingOf = (value: unknown) => String(value ?? '').trim().toUpperCase();

/** A v1.0 card's `supportedInterfaces`, in the peer's order of preference. */
export function interfacesOfV1Card(card: Wire): PeerInterface[] {
  const listed = Array.isArray(card?.supportedInterfaces) ? (card.supportedInterfaces as Wire[]) : [];
  return listed.map((entry, index) => ({ url: entry?.url, binding: bindingOf(entry?.protocolBinding), protocol: protocolOf(entry?.protocolVersion), field: `supportedInterfaces[${index}].url` }));
}

/**
 * A v0.3 card's interfaces, in the peer's order: `url` speaks `preferredTransport` (JSONRPC when
 * the card names none), then `additionalInterfaces`. Every one of them is v0.3.
 */
export function interfacesOfV03Card(card: Wire): PeerInterface[] {
  const additional = Array.isArray(card?.additionalInterfaces) ? (card.additionalInterfaces as Wire[]) : [];
  return [
    { url: card?.url, binding: card?.preferredTransport === undefined ? 'JSONRPC' : bindingOf(card.preferredTransport), protocol: '0.3' as const, field: 'url' },
    ...additional.map((entry, index) => ({ url: entry?.url, binding: bindingOf(entry?.transport), protocol: '0.3' as const, field: `additionalInterfaces[${index}].url` })),
  ];
}

/**
 * The interface to call a peer on: the newest protocol version the client speaks with the peer
 * (1.0 over 0.3), and within it the first interface in the peer's order whose binding the client
 * speaks. An interface whose URL `allowed` refuses (it leaves the peer's registered origin) is
 * never chosen; `refused` lists those that would have been, for the error when nothing is left.
 */
export function chooseInterface(interfaces: PeerInterface[], allowed: (url: unknown) => boolean): { chosen: (ChosenInterface & { field: string }) | null; refused: PeerInterface[] } {
  const spoken = interfaces.filter((entry) => speaks(entry.binding, entry.protocol));
  const refused = spoken.filter((entry) => !allowed(entry.url));
  for (const protocol of ['1.0', '0.3'] as const) {
    const chosen = spoken.find((entry) => entry.protocol === protocol && allowed(entry.url));
    if (chosen) return { chosen: { url: chosen.url as string, binding: chosen.binding as ClientBinding, protocol, field: chosen.field }, refused };
  }
  return { chosen: null, refused };
}
