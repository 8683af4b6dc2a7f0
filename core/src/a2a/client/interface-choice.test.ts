import { describe, expect, it } from 'vitest';
import { chooseInterface, interfacesOfV03Card, interfacesOfV1Card } from './interface-choice.ts';

const anywhere = () => true;
const v1 = (...entries: [string, string, string][]) => ({ supportedInterfaces: entries.map(([url, protocolBinding, protocolVersion]) => ({ url, protocolBinding, protocolVersion })) });
const choose = (card: unknown, allowed: (url: unknown) => boolean = anywhere) => chooseInterface(interfacesOfV1Card(card as never), allowed).chosen;

describe('choosing the interface to call a peer on', () => {
  it('takes the first interface of the v1.0 card the client speaks, in the peer\'s order', () => {
    expect(choose(v1(['https://p/rest', 'HTTP+JSON', '1.0'], ['https://p/rpc', 'JSONRPC', '1.0']))).toMatchObject({ url: 'https://p/rest', binding: 'HTTP+JSON', protocol: '1.0' });
    expect(choose(v1(['https://p/rpc', 'JSONRPC', '1.0'], ['https://p/rest', 'HTTP+JSON', '1.0']))).toMatchObject({ url: 'https://p/rpc', binding: 'JSONRPC', protocol: '1.0' });
  });

  it('passes over gRPC and bindings or versions it does not speak', () => {
    expect(choose(v1(['p:50051', 'GRPC', '1.0'], ['https://p/soap', 'SOAP', '1.0'], ['https://p/rest03', 'HTTP+JSON', '0.3'], ['https://p/rest', 'http+json', '1.0.2']))).toMatchObject({ url: 'https://p/rest', binding: 'HTTP+JSON', protocol: '1.0' });
    expect(choose(v1(['p:50051', 'GRPC', '1.0'], ['https://p/rpc', 'JSONRPC', '2.0']))).toBeNull();
    expect(choose({ supportedInterfaces: 'not a list' })).toBeNull();
  });

  it('prefers A2A 1.0 over 0.3, whatever the order, and takes 0.3 JSON-RPC when nothing else is spoken', () => {
    expect(choose(v1(['https://p/old', 'JSONRPC', '0.3'], ['https://p/rest', 'HTTP+JSON', '1.0']))).toMatchObject({ url: 'https://p/rest', protocol: '1.0' });
    expect(choose(v1(['p:50051', 'GRPC', '1.0'], ['https://p/old', 'JSONRPC', '0.3']))).toMatchObject({ url: 'https://p/old', binding: 'JSONRPC', protocol: '0.3' });
  });

  it('never chooses an interface whose URL is refused, and names the refused ones', () => {
    const onPeer = (url: unknown) => typeof url === 'string' && url.startsWith('https://p/');
    const { chosen, refused } = chooseInterface(interfacesOfV1Card(v1(['https://elsewhere/rest', 'HTTP+JSON', '1.0'], ['https://p/rpc', 'JSONRPC', '1.0'], ['http://169.254.169.254/', 'JSONRPC', '1.0']) as never), onPeer);
    expect(chosen).toMatchObject({ url: 'https://p/rpc', binding: 'JSONRPC' });
    expect(refused.map((entry) => entry.field)).toEqual(['supportedInterfaces[0].url', 'supportedInterfaces[2].url']);
    expect(chooseInterface(interfacesOfV1Card(v1(['https://elsewhere/rest', 'HTTP+JSON', '1.0']) as never), onPeer)).toMatchObject({ chosen: null, refused: [{ url: 'https://elsewhere/rest' }] });
  });

  it('reads a v0.3 card: url speaks preferredTransport (JSONRPC when unnamed), then additionalInterfaces; only its JSON-RPC is spoken', () => {
    const of03 = (card: unknown) => chooseInterface(interfacesOfV03Card(card as never), anywhere).chosen;
    expect(of03({ url: 'https://p/rpc' })).toMatchObject({ url: 'https://p/rpc', binding: 'JSONRPC', protocol: '0.3' });
    expect(of03({ url: 'https://p/rest', preferredTransport: 'HTTP+JSON', additionalInterfaces: [{ url: 'p:50051', transport: 'GRPC' }, { url: 'https://p/rpc', transport: 'JSONRPC' }] })).toMatchObject({ url: 'https://p/rpc', binding: 'JSONRPC', protocol: '0.3' });
    expect(of03({ url: 'https://p/rest', preferredTransport: 'HTTP+JSON' })).toBeNull();
  });
});
