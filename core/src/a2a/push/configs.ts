import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AgentAccessActor } from '../../auth/index.ts';
import type { Sealer } from '../../crypto/index.ts';
import { isDuplicateKeyError, type Models, type PushConfigRecord } from '../../db/index.ts';
import { DomainError, parseOrThrow } from '../../errors/index.ts';
import type { OutboundHttp } from '../../http/index.ts';
import { isTerminal, type RunView } from '../../runs/index.ts';
import { deliveriesOf } from './keys.ts';

/** Configs one task may have at once: each costs a POST per event, so a client cannot fan one task out without bound. */
export const MAX_PUSH_CONFIGS_PER_TASK = 10;

export type PushProtocol = '1.0' | '0.3';

/** A config as a binding read it, in the service's terms (both versions map to this). */
export interface PushConfigInput {
  /** The client's name for it; one is made up when absent. */
  id?: string;
  url: string;
  /** Sent back in `X-A2A-Notification-Token` so the receiver can tell its own tasks' notifications. */
  token?: string;
  /** Sent as `Authorization: <scheme> <credentials>`. */
  authentication?: { scheme: string; credentials?: string };
}

/** A config as the bindings show it: the token and the credentials are write-only (never sent back). */
export interface PushConfigView {
  id: string;
  taskId: string;
  url: string;
  authentication?: { scheme: string };
}

/** Printable, no line breaks: each of these ends up in a request header. */
const headerValue = (max: number) => z.string().min(1).max(max).regex(/^[\x20-\x7e]*$/, 'printable ASCII without line breaks');

export const pushConfigInputSchema = z.object({
  id: z.string().min(1).max(200).regex(/^[A-Za-z0-9._:~-]+$/, 'letters, digits and . _ : ~ -').optional(),
  url: z.string().min(1).max(2048),
  token: headerValue(1000).optional(),
  authentication: z
    .object({
      scheme: z.string().min(1).max(100).regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP authentication scheme name'),
      credentials: headerValue(4000).optional(),
    })
    .optional(),
});

/** ProtoJSON writers may send a field left at its default as `""`: an empty id, token or credentials is an absent one. */
function withoutEmptyStrings(raw: PushConfigInput): PushConfigInput {
  const { id, token, authentication, ...rest } = raw;
  const credentials = authentication?.credentials;
  return {
    ...rest,
    ...(id === '' ? {} : { id }),
    ...(token === '' ? {} : { token }),
    ...(authentication && typeof authentication === 'object' ? { authentication: { scheme: authentication.scheme, ...(credentials === '' || credentials === undefined ? {} : { credentials }) } } : authentication === undefined ? {} : { authentication }),
  } as PushConfigInput;
}

const tokenLabel = (ref: string) => `push.${ref}.token`;
const credentialsLabel = (ref: string) => `push.${ref}.credentials`;

function viewOf(row: Pick<PushConfigRecord, 'configId' | 'runId' | 'url' | 'scheme'>): PushConfigView {
  return { id: row.configId, taskId: row.runId, url: row.url, ...(row.scheme ? { authentication: { scheme: row.scheme } } : {}) };
}

/** What the dispatcher needs to send to a config: its secrets opened, in memory only. */
export interface PushTarget {
  ref: string;
  configId: string;
  runId: string;
  url: string;
  protocol: PushProtocol;
  token: string | null;
  authorization: string | null;
}

/**
 * The push notification configs of tasks (collection `push_configs`), for every binding: each
 * belongs to the client that set it (another client's looks missing), a task has at most
 * MAX_PUSH_CONFIGS_PER_TASK, its URL must pass the outbound policy when it is set (and passes it
 * again at every delivery), and its token and credentials are sealed at rest. Callers check
 * that the task is the caller's before calling (operations.ts).
 */
export function createPushConfigs(deps: { models: Models; sealer: Sealer; outbound: Pick<OutboundHttp, 'assertAllowed'> }) {
  const { PushConfig, PushCursor, PushDelivery } = deps.models;

  async function checkUrl(url: string): Promise<void> {
    try {
      await deps.outbound.assertAllowed(url);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'OUTBOUND_REFUSED') {
        throw new DomainError('VALIDATION_FAILED', `Invalid params: url: ${error.message}`, { details: [{ path: 'url', reason: error.message }] });
      }
      throw error;
    }
  }

  /** The input read and its URL checked against the outbound policy, or VALIDATION_FAILED saying why not. */
  async function check(raw: PushConfigInput): Promise<PushConfigInput> {
    const input = parseOrThrow(pushConfigInputSchema, withoutEmptyStrings(raw), 'Invalid params');
    await checkUrl(input.url);
    return input;
  }

  /**
   * Sets a config on `run` (a new one, or the caller's own of the same id replaced).
   * `fromStart`: set with the message that created the task, so every event of it is sent;
   * otherwise only events after now.
   */
  async function set(actor: AgentAccessActor, run: Pick<RunView, 'id' | 'contextId' | 'lastSeq' | 'state'>, raw: PushConfigInput, protocol: PushProtocol, options: { fromStart?: boolean } = {}): Promise<PushConfigView> {
    const input = await check(raw);
    // 0.3 clients (and its SDKs) take the task's id for a config they gave none.
    const configId = input.id ?? (protocol === '0.3' ? run.id : randomUUID());
    const existing = await PushConfig.findOne({ runId: run.id, configId }).lean();
    if (existing && existing.owner !== actor.id) throw new DomainError('NOT_FOUND', 'Task not found');
    const ref = existing?._id ?? randomUUID();
    const secrets = {
      url: input.url,
      protocol,
      tokenSealed: input.token ? deps.sealer.seal(input.token, tokenLabel(ref)) : null,
      scheme: input.authentication?.scheme ?? null,
      credentialsSealed: input.authentication?.credentials ? deps.sealer.seal(input.authentication.credentials, credentialsLabel(ref)) : null,
    };
    if (existing) {
      await PushConfig.updateOne({ _id: ref }, { $set: secrets });
      await PushCursor.updateOne({ _id: ref }, { $set: { protocol } });
      return viewOf({ ...existing, ...secrets });
    }
    if ((await PushConfig.countDocuments({ runId: run.id })) >= MAX_PUSH_CONFIGS_PER_TASK) throw tooMany();
    // Where its notifications start: the task's first event, or the one after the newest now. A
    // task that has ended has nothing more to send to a config set now. The cursor goes in first:
    // one left without its config (a crash in between) only enqueues rows that are then dropped.
    const enqueuedSeq = options.fromStart ? 0 : run.lastSeq;
    const cursor = !(isTerminal(run.state) && enqueuedSeq >= run.lastSeq);
    if (cursor) await PushCursor.create({ _id: ref, runId: run.id, contextId: run.contextId, protocol, enqueuedSeq });
    const takeBack = async () => {
      await PushConfig.deleteOne({ _id: ref });
      await PushCursor.deleteOne({ _id: ref });
    };
    const row = { _id: ref, runId: run.id, configId, owner: actor.id, ...secrets, createdAt: new Date() };
    try {
      await PushConfig.create(row);
    } catch (error) {
      await PushCursor.deleteOne({ _id: ref });
      // The same id set twice at once: the first one stored stands.
      if (isDuplicateKeyError(error)) throw new DomainError('CONFLICT', `A push notification config ${configId} is being set on this task already`);
      throw error;
    }
    // Two creates at once may both have counted nine: the one past the limit takes itself back.
    const ids = (await PushConfig.find({ runId: run.id }, { _id: 1 }).sort({ createdAt: 1, _id: 1 }).lean()).map((other) => other._id);
    if (ids.indexOf(ref) >= MAX_PUSH_CONFIGS_PER_TASK) {
      await takeBack();
      throw tooMany();
    }
    return viewOf(row);
  }

  async function get(actor: AgentAccessActor, runId: string, configId: string): Promise<PushConfigView> {
    const row = await PushConfig.findOne({ runId, configId, owner: actor.id }).lean();
    if (!row) throw new DomainError('NOT_FOUND', `No push notification config ${configId.slice(0, 200)} on this task`);
    return viewOf(row);
  }

  async function list(actor: AgentAccessActor, runId: string): Promise<PushConfigView[]> {
    const rows = await PushConfig.find({ runId, owner: actor.id }).sort({ createdAt: 1, _id: 1 }).limit(MAX_PUSH_CONFIGS_PER_TASK).lean();
    return rows.map(viewOf);
  }

  /** Deletes the caller's config and what is still to be sent to it; deleting one that is not there is no error (the spec's idempotence). */
  async function remove(actor: AgentAccessActor, runId: string, configId: string): Promise<void> {
    const row = await PushConfig.findOneAndDelete({ runId, configId, owner: actor.id }).lean();
    if (!row) return;
    await PushCursor.deleteOne({ _id: row._id });
    await PushDelivery.deleteMany(deliveriesOf(row._id));
  }

  /** A config's target with its secrets opened, or null once it is deleted. */
  async function target(ref: string): Promise<PushTarget | null> {
    const row = await PushConfig.findById(ref).lean();
    if (!row) return null;
    return {
      ref: row._id,
      configId: row.configId,
      runId: row.runId,
      url: row.url,
      protocol: row.protocol as PushProtocol,
      token: row.tokenSealed ? deps.sealer.open(row.tokenSealed, tokenLabel(row._id)) : null,
      authorization: row.scheme && row.credentialsSealed ? `${row.scheme} ${deps.sealer.open(row.credentialsSealed, credentialsLabel(row._id))}` : null,
    };
  }

  return { check, set, get, list, remove, target };
}

function tooMany(): DomainError {
  return new DomainError('VALIDATION_FAILED', `Invalid params: a task has at most ${MAX_PUSH_CONFIGS_PER_TASK} push notification configs; delete one first`, {
    details: [{ path: 'taskId', reason: `at most ${MAX_PUSH_CONFIGS_PER_TASK} push notification configs per task` }],
  });
}

export type PushConfigs = ReturnType<typeof createPushConfigs>;
