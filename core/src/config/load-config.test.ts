import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { ConfigError, loadConfig, readFeatureFlags } from './index.ts';

const key = Buffer.alloc(32, 7).toString('base64');
const good = {
  NODE_ENV: 'test',
  SERVICE_MASTER_KEY: key,
  SERVICE_SESSION_SECRET: 's'.repeat(40),
  SERVICE_BRIDGE_TOKEN: 'b'.repeat(40),
};

function failureFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ ...good, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected loadConfig to fail');
}

describe('config', () => {
  it('accepts a complete environment and applies defaults', () => {
    const config = loadConfig(good);
    expect(config.identity).toEqual({ vendorScope: '@local', productName: 'Service' });
    expect(config.baseUrl).toBe('http://127.0.0.1:3000');
    expect(config.masterKeys.current).toHaveLength(32);
    expect(config.a2aGrpcPort).toBeUndefined();
  });

  it('takes a tracing UI address with {traceId} in it (http or https only)', () => {
    expect(loadConfig(good).traceUiUrl).toBeUndefined();
    expect(loadConfig({ ...good, SERVICE_TRACE_UI_URL: 'https://jaeger.example/trace/{traceId}' }).traceUiUrl).toBe('https://jaeger.example/trace/{traceId}');
    expect(failureFor({ SERVICE_TRACE_UI_URL: 'https://jaeger.example/trace/' }).message).toContain('SERVICE_TRACE_UI_URL');
    expect(failureFor({ SERVICE_TRACE_UI_URL: 'javascript:alert({traceId})' }).message).toMatch(/SERVICE_TRACE_UI_URL.*http/s);
    expect(failureFor({ SERVICE_TRACE_UI_URL: 'https://user:pw@jaeger.example/{traceId}' }).message).toContain('SERVICE_TRACE_UI_URL');
  });

  it('turns the A2A gRPC binding on at the port SERVICE_A2A_GRPC_PORT names (0: any free port)', () => {
    expect(loadConfig({ ...good, SERVICE_A2A_GRPC_PORT: '50051' }).a2aGrpcPort).toBe(50051);
    expect(loadConfig({ ...good, SERVICE_A2A_GRPC_PORT: '0' }).a2aGrpcPort).toBe(0);
    expect(loadConfig({ ...good, SERVICE_A2A_GRPC_PORT: '' }).a2aGrpcPort).toBeUndefined();
  });

  it.each([
    ['MONGODB_URI', 'postgres://x'],
    ['SERVICE_BASE_URL', 'https://example.com/some/path'],
    ['SERVICE_BASE_URL', 'not a url'],
    ['SERVICE_VENDOR_SCOPE', 'acme'],
    ['SERVICE_A2A_GRPC_PORT', '70000'],
    ['SERVICE_A2A_GRPC_PORT', 'grpc'],
    ['SERVICE_PRODUCT_NAME', 'x'.repeat(101)],
    ['SERVICE_MASTER_KEY', 'c2hvcnQ='],
    ['SERVICE_MASTER_KEYS_PREVIOUS', `${key},nope`],
    ['SERVICE_SESSION_SECRET', 'short'],
    ['SERVICE_A2A_HTTP_ENABLED', 'yes'],
    ['SERVICE_AGUI_EXTERNAL_ENABLED', 'maybe'],
    ['SERVICE_BRIDGE_TOKEN', 'short'],
    ['SERVICE_WIDGET_VERSION', 'has spaces in it'],
    ['PORT', '70000'],
    ['PORT', 'abc'],
    ['HOST', 'bad host'],
    ['NODE_ENV', 'staging'],
  ])('%s=%j fails start-up naming the variable', (variable, value) => {
    const error = failureFor({ [variable]: value });
    expect(error.message).toContain(variable);
    expect(error.issues.map((i) => i.variable)).toContain(variable);
  });

  it('requires secrets, database and base URL in production', () => {
    const error = failureFor({ NODE_ENV: 'production', SERVICE_MASTER_KEY: '', SERVICE_SESSION_SECRET: '' });
    const names = error.issues.map((i) => i.variable);
    expect(names).toEqual(expect.arrayContaining(['MONGODB_URI', 'SERVICE_BASE_URL', 'SERVICE_MASTER_KEY', 'SERVICE_SESSION_SECRET']));
  });

  it('generates missing secrets once outside production, keeps them 0600, and never logs them', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'config-'));
    const logger = createMemoryLogger();
    const first = loadConfig({ NODE_ENV: 'development', SERVICE_DATA_DIR: dataDir }, logger);
    const second = loadConfig({ NODE_ENV: 'development', SERVICE_DATA_DIR: dataDir }, logger);
    expect(second.masterKeys.current.equals(first.masterKeys.current)).toBe(true);
    expect(second.sessionSecret).toBe(first.sessionSecret);
    const file = path.join(dataDir, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(logger.records).toHaveLength(1);
    expect(logger.records[0]!.message).toContain('SERVICE_MASTER_KEY');
    const logged = JSON.stringify(logger.records);
    for (const value of Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>)) {
      expect(logged).not.toContain(value);
    }
  });

  it('allows private outbound addresses on the embedded default only, unless told otherwise', () => {
    expect(loadConfig(good).outbound.allowPrivate).toBe(true);
    expect(loadConfig({ ...good, MONGODB_URI: 'mongodb://db.example/service' }).outbound.allowPrivate).toBe(false);
    const production = { ...good, NODE_ENV: 'production', MONGODB_URI: 'mongodb://db.example/service', SERVICE_BASE_URL: 'https://agents.example.com' };
    expect(loadConfig(production).outbound.allowPrivate).toBe(false);
    expect(loadConfig({ ...production, SERVICE_OUTBOUND_ALLOW_PRIVATE: 'true' }).outbound.allowPrivate).toBe(true);
    expect(loadConfig({ ...good, SERVICE_OUTBOUND_ALLOW_PRIVATE: 'false' }).outbound.allowPrivate).toBe(false);
    expect(failureFor({ SERVICE_OUTBOUND_ALLOW_PRIVATE: 'yes' }).issues[0]?.variable).toBe('SERVICE_OUTBOUND_ALLOW_PRIVATE');
  });

  it('trusts no proxy by default, and reads SERVICE_TRUSTED_PROXIES as addresses and CIDR blocks', () => {
    expect(loadConfig(good).trustedProxies).toEqual([]);
    expect(loadConfig({ ...good, SERVICE_TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8,fd00::/8 ' }).trustedProxies).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    const failure = failureFor({ SERVICE_TRUSTED_PROXIES: '127.0.0.1,nginx' });
    expect(failure.issues[0]).toMatchObject({ variable: 'SERVICE_TRUSTED_PROXIES', reason: expect.stringContaining('"nginx" is not an IP address') });
  });

  it('keeps the Prometheus scrape off by default, and on only with a token from SERVICE_METRICS_TOKEN or a file', () => {
    expect(loadConfig(good).metrics).toEqual({ prometheus: false, scrapeToken: undefined });
    expect(failureFor({ SERVICE_METRICS_PROMETHEUS: 'on' }).issues.map((issue) => issue.variable)).toEqual(['SERVICE_METRICS_TOKEN']);
    expect(failureFor({ SERVICE_METRICS_PROMETHEUS: 'on', SERVICE_METRICS_TOKEN: 'short' }).issues.map((issue) => issue.variable)).toEqual(['SERVICE_METRICS_TOKEN']);
    expect(failureFor({ SERVICE_METRICS_PROMETHEUS: 'yes' }).issues.map((issue) => issue.variable)).toEqual(['SERVICE_METRICS_PROMETHEUS']);
    expect(loadConfig({ ...good, SERVICE_METRICS_PROMETHEUS: 'on', SERVICE_METRICS_TOKEN: 't'.repeat(40) }).metrics).toEqual({ prometheus: true, scrapeToken: 't'.repeat(40) });
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'metrics-token-')), 'token');
    writeFileSync(file, `${'f'.repeat(40)}\n`);
    expect(loadConfig({ ...good, SERVICE_METRICS_PROMETHEUS: 'on', SERVICE_METRICS_TOKEN_FILE: file }).metrics.scrapeToken).toBe('f'.repeat(40));
    const unreadable = failureFor({ SERVICE_METRICS_PROMETHEUS: 'on', SERVICE_METRICS_TOKEN_FILE: `${file}.missing` });
    expect(unreadable.issues).toEqual([{ variable: 'SERVICE_METRICS_TOKEN_FILE', reason: 'cannot be read (ENOENT)' }]);
    // The token never appears in what a failure says.
    expect(failureFor({ SERVICE_METRICS_PROMETHEUS: 'on', SERVICE_METRICS_TOKEN: 'secret-but-short' }).message).not.toContain('secret-but-short');
  });

  it('reads the gRPC binding’s TLS files at startup: both or neither, readable, PEM of the right kind', () => {
    expect(loadConfig(good).a2aGrpcTls).toBeUndefined();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'grpc-tls-config-'));
    const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
    writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n');
    const tls = loadConfig({ ...good, SERVICE_A2A_GRPC_TLS_CERT_FILE: cert, SERVICE_A2A_GRPC_TLS_KEY_FILE: key }).a2aGrpcTls;
    expect(tls?.certChain.toString()).toContain('BEGIN CERTIFICATE');
    expect(tls?.privateKey.toString()).toContain('BEGIN PRIVATE KEY');
    expect(failureFor({ SERVICE_A2A_GRPC_TLS_CERT_FILE: cert }).issues).toEqual([{ variable: 'SERVICE_A2A_GRPC_TLS_KEY_FILE', reason: expect.stringContaining('is required with the other one') }]);
    expect(failureFor({ SERVICE_A2A_GRPC_TLS_KEY_FILE: key }).issues.map((issue) => issue.variable)).toEqual(['SERVICE_A2A_GRPC_TLS_CERT_FILE']);
    expect(failureFor({ SERVICE_A2A_GRPC_TLS_CERT_FILE: `${cert}.missing`, SERVICE_A2A_GRPC_TLS_KEY_FILE: key }).issues).toEqual([{ variable: 'SERVICE_A2A_GRPC_TLS_CERT_FILE', reason: 'cannot be read (ENOENT)' }]);
    // Swapped files: each is checked for what it must hold, and the key's content is never repeated.
    const swapped = failureFor({ SERVICE_A2A_GRPC_TLS_CERT_FILE: key, SERVICE_A2A_GRPC_TLS_KEY_FILE: cert });
    expect(swapped.issues).toEqual([{ variable: 'SERVICE_A2A_GRPC_TLS_CERT_FILE', reason: 'is not a PEM file of the expected kind' }]);
    expect(swapped.message).not.toContain('MIGH');
    const encrypted = path.join(dir, 'encrypted.pem');
    writeFileSync(encrypted, '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIHs\n-----END ENCRYPTED PRIVATE KEY-----\n');
    expect(failureFor({ SERVICE_A2A_GRPC_TLS_CERT_FILE: cert, SERVICE_A2A_GRPC_TLS_KEY_FILE: encrypted }).issues).toEqual([{ variable: 'SERVICE_A2A_GRPC_TLS_KEY_FILE', reason: expect.stringContaining('holds an encrypted key') }]);
  });

  it('reads feature flags at call time', () => {
    const env: Record<string, string> = {};
    expect(readFeatureFlags(env).a2aHttpEnabled).toBe(false);
    env.SERVICE_A2A_HTTP_ENABLED = 'true';
    expect(readFeatureFlags(env).a2aHttpEnabled).toBe(true);
    env.SERVICE_AGUI_EXTERNAL_ENABLED = 'true';
    expect(readFeatureFlags(env).aguiExternalEnabled).toBe(true);
  });
});
