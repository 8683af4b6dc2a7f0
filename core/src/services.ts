import { createRetention, type Retention } from './retention/index.ts';
import { createAuditLog, type AuditLog } from './audit/index.ts';
import { createAccounts, createSessionStore, createSignIn, createSignInThrottle, createUserStore, type Accounts, type SessionStore, type SignIn, type UserStore } from './auth/index.ts';
import type { FeatureFlags, ServiceConfig } from './config/index.ts';
import { createSealer, type Sealer } from './crypto/index.ts';
import type { Database } from './db/index.ts';
import { createHealthzHandler } from './health/index.ts';
import { createMetricsScrapeHandler, prometheusScrape } from './metrics-export/index.ts';
import { createExtensionReader, createExtensionWriter, type ExtensionReader } from './extensions/index.ts';
import { createRegistryService, type NpmRunner, type RegistryService } from './registry/index.ts';
import { createOauthProvider, SIGNING_ALG, TOKEN_ENDPOINT_PATH, type OauthProvider } from './auth/oauth/index.ts';
import { agentCardV1, buildAgentCard, createA2aGrpcServer, createA2aHandler, createA2aRestHandler, type A2aGrpcServer, createAgentCardHandler, createAgentCardV1Handler, createAguiResumeHandler, type AgentCard } from './a2a/index.ts';
import { createFeatureFlagStore, createSettings, DEFAULT_AGENT_SETTING, type FeatureFlagStore, type Settings } from './settings/index.ts';
import { createPriceTable, createUsageRollups, type PriceTable, type UsageRollups } from './usage/index.ts';
import { A2A_PERMISSIONS, createWindowCounters, type WindowCounters } from './db/index.ts';
import { createEventLog, createRunExecutor, createRunLeases, createRunStore, type EventLog, type RunExecutor, type RunStore } from './runs/index.ts';
import { selectLlmProvider, type LlmProvider } from './llm/index.ts';
import { createAgentBridgeHandler, createBridgeCalls, createLlmBridgeHandler, type BridgeCalls } from './bridge/index.ts';
import { cmsAConnector, cmsBConnector, createConnectorInstances, createPrimitiveRegistry, createStreamRegistry, extensionsSearchPrimitive, type ConnectorInstances, type PrimitiveRegistry, type StreamRegistry } from './connectors/index.ts';
import { createMcpHttpHandler, mcpAllowedHostnames } from './mcp/index.ts';
import { createBundleHandler, createWidgetEdits, createWidgetKeys, createWidgetStatusHandler, createWidgetStreamHandler, createWidgetUndoHandler, type WidgetEdits, type WidgetKeys, type WidgetSkills } from './widget/index.ts';
import { createOutboundHttp, createRateLimiter, type OutboundHttp } from './http/index.ts';
import { createImports, type GithubClient, type Imports } from './imports/index.ts';
import { createJobList, type ListJobs } from './jobs/index.ts';
import { createCmsBEvents, createCmsBNotifier } from './notifications/index.ts';
import { createPushConfigs, createPushDispatcher, type PushConfigs, type PushDispatcher } from './a2a/push/index.ts';
import { callRemoteAgent, createA2aClient, createRemoteBridge, createRemotePeers, peerAgentOf, type A2aClient, type RemoteBridge, type RemotePeers } from './a2a/client/index.ts';
import { createToolbox } from './toolbox/index.ts';
import { flowDefinitionSchema, flowTools, type KnownTools } from './agents/index.ts';
import { createMcpServers, type McpServers } from './mcp-servers/index.ts';
import type { Logger } from './log/index.ts';
import { createUseCases, type UseCases } from './use-cases/index.ts';
import { SERVICE_VERSION } from './version.ts';

export interface Services {
  config: ServiceConfig;
  /** The A2A gRPC binding: the web process listens on SERVICE_A2A_GRPC_PORT when it is set. */
  a2aGrpc: A2aGrpcServer;
  logger: Logger;
  database: Database;
  sealer: Sealer;
  users: UserStore;
  sessions: SessionStore;
  /** Users and sessions as admins and the signed-in user manage them (the users and account pages, admin:create). */
  accounts: Accounts;
  /** Password sign-in, throttled per account and per client address (counted in the database, across processes). */
  signIn: SignIn;
  /** The shared windows of the sign-in and token rate limits (ADR 0030). */
  windowCounters: WindowCounters;
  audit: AuditLog;
  /** Every read of extension records goes through this (the visibility filter). */
  extensions: ExtensionReader;
  registry: RegistryService;
  /** Imports from GitHub, a zip or a chat, and the background sync of auto-updating ones. */
  imports: Imports;
  /** The jobs page: publish, import and sync jobs, newest first. */
  jobs: { list: ListJobs };
  oauth: OauthProvider;
  llm: LlmProvider;
  runs: RunStore;
  eventLog: EventLog;
  executor: RunExecutor;
  agentCard(): Promise<AgentCard>;
  /** The v1.0 card of the host, or of one agent (null when it is not here). */
  cardV1(agent: string | null): Promise<Record<string, unknown> | null>;
  settings: Settings;
  /** The operator's LLM price table (usage/prices.ts). */
  prices: PriceTable;
  /** Usage totals per day per agent and caller (usage/rollups.ts). */
  usageRollups: UsageRollups;
  peers: RemotePeers;
  a2aClient: A2aClient;
  remote: RemoteBridge;
  /** Every connector primitive; MCP and agents call them through it. */
  primitives: PrimitiveRegistry;
  /** CMS sites of every connector, credentials sealed. */
  connectorInstances: ConnectorInstances;
  /** External MCP servers an admin registered, whose tools agents may call. */
  mcpServers: McpServers;
  /** The one way out: every call to a peer, registry, CMS site, GitHub, LLM or webhook goes through it. */
  outbound: OutboundHttp;
  /** Connector units by widget stream slug (`cms-a-content-editor`, `cms-b-content-editor`). */
  streams: StreamRegistry;
  widgetKeys: WidgetKeys;
  /** The changes the widget applied, kept (with their undo tokens) for their Undo. */
  widgetEdits: WidgetEdits;
  /** The assistant agent's skills the widget's turn may call. */
  widgetSkills: WidgetSkills;
  /** A2A push notifications: the configs clients set on their tasks, and the outbox that sends them (ADR 0033). */
  push: { configs: PushConfigs; dispatcher: PushDispatcher };
  /** Signed notifications to CMS-B sites (retried with backoff). */
  notifyCmsB: ReturnType<typeof createCmsBNotifier>;
  /** Built-in content events (`content.draft_updated`, `content.draft_restored`, `content.published`) to subscribed CMS-B sites. */
  cmsBEvents: ReturnType<typeof createCmsBEvents>;
  /** The runtime switches, read per request (one-second cache) so they change without a restart. */
  flags(): Promise<FeatureFlags>;
  /** Changing the switches (admins, audited) and storing their first state. */
  featureFlags: FeatureFlagStore;
  version: string;
  /** Deletes history past the operator's retention settings; run by the background sweep. */
  retention: Retention;
  /** The database server in use: MONGODB_URI, or what the embedded default started. */
  databaseServer: DatabaseServer;
  /**
   * What callers do beyond one call of one capability (start a run, answer a pause, the runs
   * page, the overview…): the one way each is done, for the admin UI, A2A and AG-UI alike.
   */
  useCases: UseCases;
  /** What the agent runtime process asks its host for, over its IPC channel. */
  bridgeCalls: BridgeCalls;
  /** An MCP HTTP endpoint for another resource (the standalone server's URL). */
  mcpHandlerFor: (resource: () => string) => (request: Request) => Promise<Response>;
  handlers: {
    healthz: (request: Request) => Promise<Response>;
    /** `GET /metrics`: the Prometheus scrape (404 unless SERVICE_METRICS_PROMETHEUS=on). */
    metrics: (request: Request) => Promise<Response>;
    oauthToken: (request: Request) => Promise<Response>;
    jwks: (request: Request) => Promise<Response>;
    /** RFC 8414 authorization server metadata. */
    oauthMetadata: (request: Request) => Promise<Response>;
    /** RFC 7591 dynamic client registration. */
    oauthRegister: (request: Request) => Promise<Response>;
    oauthRevoke: (request: Request) => Promise<Response>;
    /** RFC 9728 metadata of the `/api/mcp` resource. */
    mcpResourceMetadata: (request: Request) => Promise<Response>;
    /** The contract's v0.3 card (`/.well-known/agent.json`). */
    agentCard: (request: Request) => Promise<Response>;
    /** The v1.0 card: the host's, or one agent's (`/a2a/<vendor>/<slug>/.well-known/agent-card.json`). */
    agentCardV1: (request: Request, agent?: string | null) => Promise<Response>;
    /** JSON-RPC A2A (v0.3 and v1.0): at `/api/a2a`, or one agent's endpoint when `route.agent` is set. */
    a2a: (request: Request, route?: { agent?: string }) => Promise<Response>;
    /** A2A 1.0 HTTP+JSON (REST) under `/api/a2a/...`, or one agent's `/a2a/<vendor>/<slug>/...` when `route.agent` is set. */
    a2aRest: (request: Request, route?: { agent?: string }) => Promise<Response>;
    agentBridge: (request: Request, params: { vendor: string; slug: string }) => Promise<Response>;
    llmBridge: (request: Request) => Promise<Response>;
    aguiResume: (request: Request) => Promise<Response>;
    /** `/api/mcp`: tokens bound to that resource (or machine clients' tokens). */
    mcp: (request: Request) => Promise<Response>;
    widgetStream: (request: Request, slug: string) => Promise<Response>;
    widgetUndo: (request: Request, slug: string) => Promise<Response>;
    widgetStatus: (request: Request, slug: string) => Promise<Response>;
    widgetBundle: (request: Request) => Promise<Response>;
  };
}

/** Wires every capability once. The web app and (later) the MCP server both call this. */
export interface DatabaseServer {
  kind: 'external' | 'ferretdb' | 'mongod';
  description: string;
}

export function createServices(deps: { config: ServiceConfig; logger: Logger; database: Database; npm?: NpmRunner; llm?: LlmProvider; github?: GithubClient; databaseServer?: DatabaseServer }): Services {
  const { config, logger, database } = deps;
  const outbound = createOutboundHttp(config.outbound);
  const users = createUserStore(database.models);
  const sessions = createSessionStore(database.models, users);
  const windowCounters = createWindowCounters(database.models);
  const sealer = createSealer(config.masterKeys);
  const audit = createAuditLog(database.models, logger.child({ component: 'audit' }));
  const signIn = createSignIn({ users, audit, throttle: createSignInThrottle({ counters: windowCounters }) });
  // Review knows this instance's tools: its connector primitives and what registered MCP servers listed (wired below).
  const extensions = createExtensionReader(database.models, config.identity, { knownTools: () => knownTools() });
  const writer = createExtensionWriter(database.models);
  // The registry has a client of its own: the one loopback origin it may reach whatever
  // SERVICE_OUTBOUND_ALLOW_PRIVATE says (its embedded registry, once settings.useEmbedded names it) stays its alone.
  const embeddedRegistryOrigins = new Set<string>();
  const registry = createRegistryService({
    models: database.models,
    sealer,
    identity: config.identity,
    reader: extensions,
    writer,
    audit,
    logger: logger.child({ component: 'registry' }),
    http: createOutboundHttp({ ...config.outbound, exemptOrigins: embeddedRegistryOrigins }),
    embeddedOrigins: embeddedRegistryOrigins,
    ...(deps.npm ? { npm: deps.npm } : {}),
  });
  const oauth = createOauthProvider({
    models: database.models,
    counters: windowCounters,
    sealer,
    audit,
    logger: logger.child({ component: 'oauth' }),
    canonicalOrigin: () => config.baseUrl,
    http: outbound,
    extraMcpResources: () => (config.mcpPublicUrl ? [config.mcpPublicUrl] : []),
    productName: config.identity.productName,
  });
  const llm = deps.llm ?? selectLlmProvider(config, logger.child({ component: 'llm' }), outbound);
  const imports = createImports({
    models: database.models,
    reader: extensions,
    writer,
    audit,
    logger: logger.child({ component: 'imports' }),
    identity: config.identity,
    llm: () => llm,
    github: deps.github ?? { apiUrl: config.imports.githubApiUrl, token: config.imports.githubToken },
    http: outbound,
    syncIntervalMs: config.imports.syncIntervalMs,
  });
  // One lease holder per process: runs it creates are leased to it from their first write.
  const leases = createRunLeases(database.models, { profile: database.profile, serverTime: database.serverTime, logger: logger.child({ component: 'runs' }) });
  const usageRollups = createUsageRollups({ models: database.models, logger: logger.child({ component: 'usage' }) });
  const eventLog = createEventLog(database.models, {
    finished: async (runId, usage) => {
      // Counted beside the lease's release, not before the end is reported: it never slows an answer.
      void usageRollups.countEnded(runId, usage);
      await leases.finished(runId);
    },
    logger: logger.child({ component: 'runs' }),
  });
  const runs = createRunStore({ models: database.models, eventLog, leases });
  const peers = createRemotePeers({ models: database.models, sealer, audit });
  const a2aClient = createA2aClient({ peers, logger: logger.child({ component: 'a2a-client' }), http: outbound });
  const executor = createRunExecutor({
    runs,
    eventLog,
    extensions,
    llm,
    logger: logger.child({ component: 'runs' }),
    leases,
    remoteAgent: (agent, input, options) => callRemoteAgent({ peers, client: a2aClient }, agent, input, options),
    price: (calls) => prices.price(calls),
    // The toolbox needs the connector primitives, wired below.
    toolbox: { resolve: (agent, tools) => toolbox.resolve(agent, tools) },
  });
  const settings = createSettings({ models: database.models, audit });
  const prices = createPriceTable({ settings });
  const featureFlags = createFeatureFlagStore({ settings });
  const flags = () => featureFlags.read();
  // The card is read on every A2A call (which agent, may this client use it); rebuilding it from
  // the extension records at most once a second keeps that off the hot path.
  const agentCard = cachedFor(1_000, async () =>
    buildAgentCard({
      extensions,
      baseUrl: config.baseUrl,
      productName: config.identity.productName,
      version: SERVICE_VERSION,
      tokenEndpointPath: TOKEN_ENDPOINT_PATH,
      aguiExternalEnabled: (await flags()).aguiExternalEnabled,
    }),
  );
  const scopes = Object.fromEntries(A2A_PERMISSIONS.map((permission) => [permission, `${permission} the agents this client is granted`]));
  /** The v1.0 card of the host, or of one agent (null when it is not here). */
  const cardV1 = async (agent: string | null) => {
    const card = await agentCard();
    if (agent && !card.skills.some((skill) => skill.id === agent)) return null;
    const grpcPort = a2aGrpc.port();
    return agentCardV1(card, { baseUrl: config.baseUrl, agent, scopes, grpc: grpcPort === null ? null : `${new URL(config.baseUrl).hostname}:${grpcPort}` });
  };
  const defaultAgent = () => settings.get<string>(DEFAULT_AGENT_SETTING);
  const remote = createRemoteBridge({ client: a2aClient, runs, eventLog, leases, logger: logger.child({ component: 'a2a-client' }) });
  const connectorInstances = createConnectorInstances({ models: database.models, sealer, audit });
  const notifyCmsB = createCmsBNotifier({ instances: connectorInstances, http: outbound, logger: logger.child({ component: 'notifications' }) });
  const cmsBEvents = createCmsBEvents({ notify: notifyCmsB, logger: logger.child({ component: 'notifications' }) });
  const connectors = [cmsAConnector({ instances: connectorInstances, http: outbound, llm: () => llm }), cmsBConnector({ instances: connectorInstances, http: outbound, llm: () => llm, events: cmsBEvents })];
  const primitives = createPrimitiveRegistry({ primitives: [extensionsSearchPrimitive(extensions), ...connectors.flatMap((c) => c.primitives)], audit });
  const streams = createStreamRegistry(connectors);
  const mcpServers = createMcpServers({ models: database.models, sealer, audit, outbound, logger: logger.child({ component: 'mcp-servers' }), version: SERVICE_VERSION });
  const knownTools = async (): Promise<KnownTools> => {
    const servers = new Map((await mcpServers.list()).map((server) => [server.id, server.tools.map((tool) => tool.name)]));
    return { primitives: new Set(primitives.list().map((primitive) => primitive.name)), mcpTools: (server) => servers.get(server) };
  };
  const toolbox = createToolbox({ extensions, primitives, mcpServers, peerAgent: (agent) => peerAgentOf({ peers, client: a2aClient }, agent), logger: logger.child({ component: 'tools' }) });
  const widgetKeys = createWidgetKeys({ models: database.models, audit });
  const widgetEdits = createWidgetEdits({ models: database.models });
  // The widget's turn may call the skills of an agent an admin picked (agents only, none that asks for approval).
  const widgetSkills: WidgetSkills = {
    async of(agent) {
      const record = await extensions.getByPackageName(agent);
      if (!record || record.kind !== 'agent') return [];
      const flow = flowDefinitionSchema.parse(record.source.flow);
      return toolbox.resolve(agent, flowTools(flow).filter((tool) => tool.ref.kind === 'agent' && tool.approval !== 'always'));
    },
    callAgent: (agent, input, call) => executor.callAgent(agent, input, call.signal, call.key, call.recorder),
  };
  const widgetDeps = { streams, widgetKeys, edits: widgetEdits, audit, llm: () => llm, rateLimiter: createRateLimiter({ limit: 60, windowMs: 60_000 }), logger: logger.child({ component: 'widget' }), skills: widgetSkills };
  const databaseServer = deps.databaseServer ?? { kind: 'external' as const, description: 'MongoDB (MONGODB_URI)' };
  const useCases = createUseCases({
    models: database.models,
    config,
    version: SERVICE_VERSION,
    databaseServer,
    card: agentCard,
    flags,
    runs,
    eventLog,
    executor,
    remote,
    peers,
    settings,
    registry,
    llm,
    connectorInstances,
    widgetKeys,
  });
  const bridge = { bridgeToken: () => config.bridgeToken, card: agentCard, executor, llm, logger: logger.child({ component: 'bridge' }) };
  const pushConfigs = createPushConfigs({ models: database.models, sealer, outbound });
  const pushDispatcher = createPushDispatcher({
    models: database.models,
    profile: database.profile,
    eventLog,
    configs: pushConfigs,
    outbound,
    // Notifications are signed with the key whose public half the OAuth JWKS already publishes.
    signer: { key: async () => ({ ...(await oauth.keys.current()), alg: SIGNING_ALG }), issuer: () => config.baseUrl },
    logger: logger.child({ component: 'push' }),
  });
  // One set of A2A dependencies for every binding (JSON-RPC, HTTP+JSON, gRPC): one way to start, answer and read runs.
  const a2aDeps = { flags, verifyToken: oauth.tokens.verify, card: agentCard, cardV1: async (agent: string | null) => (await cardV1(agent)) ?? {}, defaultAgent,
    startRun: useCases.runs.start,
    answerPause: useCases.runs.answer,
    runs,
    eventLog,
    executor: { cancel: useCases.runs.cancelById },
    push: pushConfigs,
    logger: logger.child({ component: 'a2a' }),
  };
  // Served only where the web process starts it (SERVICE_A2A_GRPC_PORT); the card lists it while it listens.
  const a2aGrpc = createA2aGrpcServer(a2aDeps);
  const mcpHandlerFor = (resource: () => string) =>
    createMcpHttpHandler({ registry: primitives, verifyToken: oauth.tokens.verify, resource, version: SERVICE_VERSION, logger: logger.child({ component: 'mcp' }), allowedHostnames: mcpAllowedHostnames(config) });
  return {
    config,
    a2aGrpc,
    logger,
    database,
    sealer,
    users,
    sessions,
    accounts: createAccounts({ models: database.models, users, sessions, signIn, audit }),
    signIn,
    windowCounters,
    audit,
    extensions,
    registry,
    imports,
    jobs: { list: createJobList(database.models) },
    oauth,
    llm,
    runs,
    eventLog,
    executor,
    agentCard,
    cardV1,
    settings,
    prices,
    usageRollups,
    peers,
    a2aClient,
    remote,
    primitives,
    connectorInstances,
    mcpServers,
    outbound,
    streams,
    widgetKeys,
    widgetEdits,
    widgetSkills,
    push: { configs: pushConfigs, dispatcher: pushDispatcher },
    notifyCmsB,
    cmsBEvents,
    flags,
    featureFlags,
    version: SERVICE_VERSION,
    retention: createRetention(database.models, config.retention),
    databaseServer,
    useCases,
    bridgeCalls: createBridgeCalls(bridge),
    mcpHandlerFor,
    handlers: {
      healthz: createHealthzHandler({ database, version: SERVICE_VERSION }),
      metrics: createMetricsScrapeHandler({ token: () => (config.metrics.prometheus ? config.metrics.scrapeToken : undefined), scrape: prometheusScrape }),
      oauthToken: oauth.handlers.token,
      jwks: oauth.handlers.jwks,
      oauthMetadata: oauth.handlers.metadata,
      oauthRegister: oauth.handlers.register,
      oauthRevoke: oauth.handlers.revoke,
      mcpResourceMetadata: oauth.handlers.mcpResourceMetadata,
      agentCard: createAgentCardHandler(agentCard),
      agentCardV1: createAgentCardV1Handler(cardV1),
      agentBridge: createAgentBridgeHandler(bridge),
      aguiResume: createAguiResumeHandler({ flags, verifyToken: oauth.tokens.verify, runs, executor, answerPause: useCases.runs.answer, logger: logger.child({ component: 'agui' }) }),
      llmBridge: createLlmBridgeHandler(bridge),
      widgetStream: createWidgetStreamHandler(widgetDeps),
      widgetUndo: createWidgetUndoHandler(widgetDeps),
      widgetStatus: createWidgetStatusHandler(widgetDeps),
      widgetBundle: createBundleHandler(),
      mcp: mcpHandlerFor(oauth.mcpResource),
      a2a: createA2aHandler(a2aDeps),
      a2aRest: createA2aRestHandler(a2aDeps),
    },
  };
}

/** Memoises an async value for `ttlMs`; concurrent callers share one computation. */
function cachedFor<T>(ttlMs: number, compute: () => Promise<T>): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!cached || Date.now() - cached.at > ttlMs) {
      const value = compute();
      cached = { at: Date.now(), value };
      value.catch(() => (cached = undefined));
    }
    return cached.value;
  };
}
