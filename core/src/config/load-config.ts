import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type z } from 'zod';
import { DomainError } from '../errors/index.ts';
import { decodeKey, envSchema, type RawEnv } from './env-schema.ts';
import { readGeneratedSecrets, readOrCreateGeneratedSecrets } from './generated-secrets.ts';
import type { Logger } from '../log/index.ts';
import path from 'node:path';

export type Env = Record<string, string | undefined>;

export interface ServiceConfig {
  mode: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** SERVICE_MAX_CONNECTIONS: the web server's connection cap before the descriptor limit lowers it. */
  maxConnections: number;
  /** The A2A gRPC binding's port, or undefined when it is off (SERVICE_A2A_GRPC_PORT unset). */
  a2aGrpcPort: number | undefined;
  /** The gRPC binding's certificate chain and private key (PEM); undefined: plaintext HTTP/2. */
  a2aGrpcTls: { certChain: Buffer; privateKey: Buffer } | undefined;
  mongodbUri: string | undefined;
  dataDir: string;
  baseUrl: string;
  /** SERVICE_MCP_PUBLIC_URL: where the standalone MCP server is reached, when it takes OAuth tokens of its own. */
  mcpPublicUrl: string | undefined;
  /** SERVICE_TRACE_UI_URL: a trace's page in a tracing UI, `{traceId}` marking where its id goes; undefined: no trace links. */
  traceUiUrl: string | undefined;
  identity: { vendorScope: string; productName: string };
  masterKeys: { current: Buffer; previous: Buffer[] };
  sessionSecret: string;
  bridgeToken: string | undefined;
  widgetVersion: string;
  initialAdmin: { email: string; password: string } | undefined;
  logLevel: RawEnv['SERVICE_LOG_LEVEL'];
  imports: { githubApiUrl: string; githubToken: string | undefined; syncEnabled: boolean; syncIntervalMs: number };
  /** Days to keep each kind of history; null keeps everything (the default). */
  retention: { runsDays: number | null; auditDays: number | null; jobsDays: number | null };
  llm: { provider: 'scripted' | 'openai-compatible' | 'anthropic'; baseUrl: string | undefined; apiKey: string | undefined; model: string | undefined; scriptedDelayMs: number };
  /** The outbound HTTP policy (core/src/http/outbound.ts). */
  outbound: { allowPrivate: boolean };
  /** Peers whose `X-Forwarded-For` is believed (core/src/http/client-address.ts); empty by default. */
  trustedProxies: string[];
  /** The Prometheus scrape endpoint: on only with the token a scraper must present. */
  metrics: { prometheus: boolean; scrapeToken: string | undefined };
}

/** Secrets the embedded default generates once and keeps in the data dir; production requires them. */
const GENERATED = ['SERVICE_MASTER_KEY', 'SERVICE_SESSION_SECRET', 'SERVICE_BRIDGE_TOKEN'] as const;
const REQUIRED_IN_PRODUCTION = ['MONGODB_URI', 'SERVICE_BASE_URL', 'SERVICE_MASTER_KEY', 'SERVICE_SESSION_SECRET'] as const;

export class ConfigError extends DomainError {
  override name = 'ConfigError';
  constructor(readonly issues: { variable: string; reason: string }[]) {
    super('CONFIG_INVALID', `Invalid configuration:\n${issues.map((i) => `  ${i.variable}: ${i.reason}`).join('\n')}`, {
      details: issues,
    });
  }
}

/** Empty variables count as unset, as shells and .env files commonly leave them. */
export function parseEnv(env: Env): RawEnv {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = envSchema.safeParse(present);
  if (!result.success) throw new ConfigError(describeIssues(result.error));
  return result.data;
}

export function describeIssues(error: z.ZodError): { variable: string; reason: string }[] {
  return error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '(env)'), reason: issue.message }));
}

/**
 * Parses and completes the configuration once at start-up. Outside production, missing secrets
 * are generated and persisted under the data dir (never printed); in production they are required.
 */
export function loadConfig(env: Env, logger?: Logger, options: { generateSecrets?: boolean } = {}): ServiceConfig {
  const raw = parseEnv(env);
  const dataDir = path.resolve(raw.SERVICE_DATA_DIR);

  if (raw.NODE_ENV === 'production') {
    const missing = REQUIRED_IN_PRODUCTION.filter((name) => !raw[name]);
    if (missing.length > 0) {
      throw new ConfigError(missing.map((variable) => ({ variable, reason: 'is required when NODE_ENV=production' })));
    }
  } else {
    const absent = GENERATED.filter((name) => !raw[name]);
    if (absent.length > 0 && options.generateSecrets === false) {
      // A process that serves beside the web service uses the service's secrets; new ones would seal nothing it can read.
      const stored = readGeneratedSecrets(dataDir);
      const missing = absent.filter((name) => !stored[name]);
      if (missing.length > 0) {
        throw new ConfigError(missing.map((variable) => ({ variable, reason: `is unset and ${dataDir} holds none (the service generates it there on its first start): set SERVICE_DATA_DIR to the service's data directory, or set ${variable}` })));
      }
      for (const name of absent) Object.assign(raw, { [name]: stored[name] });
    } else if (absent.length > 0) {
      const generated = readOrCreateGeneratedSecrets(dataDir, {
        SERVICE_MASTER_KEY: () => randomBytes(32).toString('base64'),
        SERVICE_SESSION_SECRET: () => randomBytes(32).toString('base64url'),
        SERVICE_BRIDGE_TOKEN: () => randomBytes(32).toString('base64url'),
      }, logger);
      for (const name of absent) Object.assign(raw, { [name]: generated[name] });
    }
  }

  const githubApi = new URL(raw.SERVICE_GITHUB_API_URL);
  if (raw.SERVICE_GITHUB_TOKEN && githubApi.protocol !== 'https:' && !['127.0.0.1', 'localhost', '[::1]'].includes(githubApi.hostname)) {
    throw new ConfigError([{ variable: 'SERVICE_GITHUB_API_URL', reason: 'must be https:// when SERVICE_GITHUB_TOKEN is set (the token would travel in clear)' }]);
  }

  const masterKey = decodeKey(raw.SERVICE_MASTER_KEY!)!;
  const scrapeToken = metricsScrapeToken(raw);
  return {
    mode: raw.NODE_ENV,
    host: raw.HOST,
    port: raw.PORT,
    maxConnections: raw.SERVICE_MAX_CONNECTIONS,
    a2aGrpcPort: raw.SERVICE_A2A_GRPC_PORT,
    a2aGrpcTls: grpcTls(raw),
    mongodbUri: raw.MONGODB_URI,
    dataDir,
    baseUrl: raw.SERVICE_BASE_URL ?? `http://${raw.HOST.includes(':') ? `[${raw.HOST}]` : raw.HOST}:${raw.PORT}`,
    // Normalised (`https://host` is `https://host/`), as both processes compare it with what clients send.
    mcpPublicUrl: raw.SERVICE_MCP_PUBLIC_URL ? new URL(raw.SERVICE_MCP_PUBLIC_URL).href : undefined,
    traceUiUrl: raw.SERVICE_TRACE_UI_URL,
    identity: { vendorScope: raw.SERVICE_VENDOR_SCOPE, productName: raw.SERVICE_PRODUCT_NAME },
    masterKeys: { current: masterKey, previous: raw.SERVICE_MASTER_KEYS_PREVIOUS.map((k) => decodeKey(k)!) },
    sessionSecret: raw.SERVICE_SESSION_SECRET!,
    bridgeToken: raw.SERVICE_BRIDGE_TOKEN,
    widgetVersion: raw.SERVICE_WIDGET_VERSION,
    initialAdmin:
      raw.SERVICE_ADMIN_EMAIL && raw.SERVICE_ADMIN_PASSWORD
        ? { email: raw.SERVICE_ADMIN_EMAIL, password: raw.SERVICE_ADMIN_PASSWORD }
        : undefined,
    logLevel: raw.SERVICE_LOG_LEVEL,
    imports: {
      githubApiUrl: raw.SERVICE_GITHUB_API_URL,
      githubToken: raw.SERVICE_GITHUB_TOKEN,
      syncEnabled: raw.SERVICE_IMPORT_SYNC_ENABLED,
      syncIntervalMs: raw.SERVICE_IMPORT_SYNC_INTERVAL_MS,
    },
    retention: {
      runsDays: raw.SERVICE_RETENTION_RUNS_DAYS ?? null,
      auditDays: raw.SERVICE_RETENTION_AUDIT_DAYS ?? null,
      jobsDays: raw.SERVICE_RETENTION_JOBS_DAYS ?? null,
    },
    llm: {
      provider: raw.SERVICE_LLM_PROVIDER,
      baseUrl: raw.SERVICE_LLM_BASE_URL,
      apiKey: raw.SERVICE_LLM_API_KEY,
      model: raw.SERVICE_LLM_MODEL,
      scriptedDelayMs: raw.SERVICE_LLM_SCRIPTED_DELAY_MS,
    },
    outbound: { allowPrivate: raw.SERVICE_OUTBOUND_ALLOW_PRIVATE ?? (raw.NODE_ENV !== 'production' && !raw.MONGODB_URI) },
    trustedProxies: raw.SERVICE_TRUSTED_PROXIES,
    metrics: { prometheus: raw.SERVICE_METRICS_PROMETHEUS, scrapeToken },
  };
}

/** The file a `*_FILE` variable names, or a ConfigError naming the variable (never the content). */
function readConfigFile(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigError([{ variable, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` }]);
  }
}

/** The gRPC binding's TLS files, read once at startup: both or neither, each readable and PEM. */
function grpcTls(raw: RawEnv): ServiceConfig['a2aGrpcTls'] {
  const cert = raw.SERVICE_A2A_GRPC_TLS_CERT_FILE;
  const key = raw.SERVICE_A2A_GRPC_TLS_KEY_FILE;
  if (!cert && !key) return undefined;
  if (!cert || !key) throw new ConfigError([{ variable: cert ? 'SERVICE_A2A_GRPC_TLS_KEY_FILE' : 'SERVICE_A2A_GRPC_TLS_CERT_FILE', reason: 'is required with the other one: the certificate chain and its private key go together' }]);
  const read = (variable: string, file: string, label: RegExp) => {
    const pem = readConfigFile(variable, file);
    const text = pem.toString('latin1');
    if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text)) throw new ConfigError([{ variable, reason: 'holds an encrypted key; the service takes an unencrypted one (keep the file readable by the service only)' }]);
    if (!label.test(text)) throw new ConfigError([{ variable, reason: 'is not a PEM file of the expected kind' }]);
    return pem;
  };
  return { certChain: read('SERVICE_A2A_GRPC_TLS_CERT_FILE', cert, /-----BEGIN CERTIFICATE-----/), privateKey: read('SERVICE_A2A_GRPC_TLS_KEY_FILE', key, /-----BEGIN (EC |RSA )?PRIVATE KEY-----/) };
}

/** SERVICE_METRICS_TOKEN, or the file SERVICE_METRICS_TOKEN_FILE names; required when the scrape endpoint is on. */
function metricsScrapeToken(raw: RawEnv): string | undefined {
  if (raw.SERVICE_METRICS_TOKEN && raw.SERVICE_METRICS_TOKEN_FILE) throw new ConfigError([{ variable: 'SERVICE_METRICS_TOKEN_FILE', reason: 'set it or SERVICE_METRICS_TOKEN, not both' }]);
  let token = raw.SERVICE_METRICS_TOKEN;
  if (raw.SERVICE_METRICS_TOKEN_FILE) {
    token = readConfigFile('SERVICE_METRICS_TOKEN_FILE', raw.SERVICE_METRICS_TOKEN_FILE).toString('utf8').trim();
    if (token.length < 32) throw new ConfigError([{ variable: 'SERVICE_METRICS_TOKEN_FILE', reason: 'must hold a token of at least 32 characters' }]);
  }
  if (raw.SERVICE_METRICS_PROMETHEUS && !token) throw new ConfigError([{ variable: 'SERVICE_METRICS_TOKEN', reason: 'is required when SERVICE_METRICS_PROMETHEUS=on (the token a scraper presents; openssl rand -base64 32), or set SERVICE_METRICS_TOKEN_FILE' }]);
  return token;
}
