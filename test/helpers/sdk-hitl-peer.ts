import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard, Message, Part } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';

/** The JSON Schema the `order` skill asks its question with (a data part of its input-required message). */
export const ORDER_FORM = { type: 'object', properties: { orderId: { type: 'string', title: 'Order number' }, rush: { type: 'boolean', title: 'Rush delivery' } }, required: ['orderId'] };

export interface SdkHitlPeer {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Every message the agent received, by task: what an answer looked like on the peer's side. */
  received: { taskId: string; text: string; data: unknown[] }[];
  close(): Promise<void>;
}

/**
 * An A2A peer built only with `@a2a-js/sdk` 1.x (its DefaultRequestHandler, task store and JSON-RPC
 * handler), behind OAuth 2.0 client credentials as a deployed agent would be. Its agents pause
 * with `input-required` the way SDK agents do, knowing nothing of this project: `greeter` asks a
 * question in words and greets with the answer; `order` asks with a form (a JSON Schema data part)
 * and confirms the values it was sent.
 */
export async function startSdkHitlPeer(): Promise<SdkHitlPeer> {
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import('@a2a-js/sdk/server');
  const { jsonRpcHandler, UserBuilder } = await import('@a2a-js/sdk/server/express');
  const { Role, TaskState } = await import('@a2a-js/sdk');
  const { default: express } = await import('express');
  const clientId = 'sdk-peer-client';
  const clientSecret = randomUUID();
  const token = randomUUID();
  const received: SdkHitlPeer['received'] = [];
  const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
  const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
  const agentMessage = (taskId: string, contextId: string, parts: Part[]): Message => ({ messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] });
  /** Which agent each task is of (the answer carries no skill id). */
  const skillOf = new Map<string, string>();

  const executor: AgentExecutor = {
    async execute(context, bus) {
      const { taskId, contextId, userMessage } = context;
      const text = userMessage.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join(' ');
      const data = userMessage.parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));
      received.push({ taskId, text, data });
      const status = (state: number, parts: Part[]) => ({ state, timestamp: new Date().toISOString(), message: agentMessage(taskId, contextId, parts) });
      if (!context.task) {
        const skill = String(userMessage.metadata?.skillId ?? 'greeter');
        skillOf.set(taskId, skill);
        const question = skill === 'order' ? [textPart('Which order is it, and is it a rush?'), dataPart(ORDER_FORM)] : [textPart('What is your name?')];
        bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED, []), history: [userMessage], artifacts: [], metadata: undefined }));
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_INPUT_REQUIRED, question), metadata: undefined }));
        bus.finished();
        return;
      }
      // A stream opens with the task (the SDK wants it first), then what the answer brought.
      bus.publish(AgentEvent.task({ ...context.task, status: status(TaskState.TASK_STATE_WORKING, []), history: [...context.task.history, userMessage] }));
      const answer = skillOf.get(taskId) === 'order' ? `Order ${String((data[0] as { orderId?: unknown } | undefined)?.orderId)}${(data[0] as { rush?: unknown } | undefined)?.rush ? ', rushed' : ''}.` : `Hello, ${text}!`;
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: randomUUID(), name: 'answer', description: '', parts: [textPart(answer)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED, [textPart(answer)]), metadata: undefined }));
      bus.finished();
    },
    async cancelTask() {},
  };

  const app = express();
  let base = '';
  app.post('/oauth/token', express.urlencoded({ extended: false }), (req, res) => {
    const basic = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
    if (basic !== `${clientId}:${clientSecret}` || req.body?.grant_type !== 'client_credentials') return void res.status(401).json({ error: 'invalid_client' });
    res.json({ access_token: token, token_type: 'Bearer', expires_in: 600 });
  });
  // The card as A2A 1.0 ProtoJSON: its JSON-RPC interface, and client credentials at its token URL.
  app.get('/.well-known/agent-card.json', (_req, res) =>
    void res.json({
      name: 'SDK peer',
      description: 'Agents built with @a2a-js/sdk that ask before they answer',
      version: '1.0.0',
      supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true, pushNotifications: false },
      securitySchemes: { oauth2: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: `${base}/oauth/token`, scopes: {} } } } } },
      securityRequirements: [{ schemes: { oauth2: { list: [] } } }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [
        { id: 'greeter', name: 'Greeter', description: 'Asks your name, then greets you', tags: ['hitl'] },
        { id: 'order', name: 'Order desk', description: 'Asks for the order with a form, then confirms it', tags: ['hitl'] },
      ],
    }),
  );
  app.use('/a2a/jsonrpc', (req, res, next) => (req.headers.authorization === `Bearer ${token}` ? next() : void res.status(401).json({ error: 'unauthorized' })));
  const card = { name: 'SDK peer', description: 'hitl', supportedInterfaces: [], provider: undefined, version: '1', documentationUrl: undefined, iconUrl: undefined, capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false }, securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [], signatures: [] } as AgentCard;
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: new DefaultRequestHandler(card, new InMemoryTaskStore(), executor), userBuilder: UserBuilder.noAuthentication }));
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The SDK's handler accepts the protocol versions its own card lists.
  card.supportedInterfaces = [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }];
  return {
    baseUrl: base,
    clientId,
    clientSecret,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
