import { createHash, randomBytes } from 'node:crypto';
import type { FieldChange, ItemState } from '../connectors/index.ts';
import { createClaims, type Claims, type Models } from '../db/index.ts';

/** How long an applied change can be undone from the widget (the row's lifetime). */
export const WIDGET_EDIT_TTL_MS = 7 * 86_400_000;
/** A claimed Undo that has not finished after this long was cut off (its process died) and may be taken over once. */
export const UNDO_CLAIM_STALE_MS = 2 * 60_000;
/** An undo token: 32 random bytes, base64url (256 bits). */
export const UNDO_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** An applied widget change, as its Undo reads it. */
export interface WidgetEdit {
  id: string;
  connector: string;
  instanceId: string;
  itemId: string;
  fields: FieldChange[];
  state: ItemState;
  undoneAt: Date | null;
  attempt: number;
}

/** The row's key: the token's hash with what it was issued for, so another instance's key presenting it finds nothing. */
const rowId = (connector: string, instanceId: string, token: string) => createHash('sha256').update(`${connector}\n${instanceId}\n${token}`).digest('base64url');

/**
 * The changes the widget applied, each under an unguessable undo token handed to the widget (the
 * `id:` of its `changes` event), so an Undo names a change the service made and reverts exactly
 * that. Each change is undone at most once: an Undo first wins an insert-once claim (ADR 0008:
 * the one compare-and-set every supported server performs atomically), keyed by the change and
 * its attempt number.
 */
export function createWidgetEdits(deps: { models: Models; claims?: Claims; now?: () => number }) {
  const { WidgetEdit } = deps.models;
  const now = deps.now ?? Date.now;
  const claims = deps.claims ?? createClaims(deps.models, undefined, now);
  const claimKey = (edit: WidgetEdit) => `widget-undo:${edit.id}:${edit.attempt}`;

  return {
    /** Keeps an applied change; answers its undo token (returned this once, only its hash is stored). */
    async record(input: { connector: string; instanceId: string; itemId: string; fields: FieldChange[]; state: ItemState; actor: string }): Promise<string> {
      const token = randomBytes(32).toString('base64url');
      const at = now();
      await WidgetEdit.create({
        _id: rowId(input.connector, input.instanceId, token),
        connector: input.connector,
        instanceId: input.instanceId,
        itemId: input.itemId,
        fields: input.fields.map(({ field, before, after }) => ({ field, before, after })),
        state: { status: input.state.status, revisionId: input.state.revisionId ?? null, publishedRevisionId: input.state.publishedRevisionId ?? null },
        actor: input.actor,
        createdAt: new Date(at),
        expiresAt: new Date(at + WIDGET_EDIT_TTL_MS),
      });
      return token;
    },

    /** The change a token names for this connector instance; null when it is unknown, expired or another instance's. */
    async find(connector: string, instanceId: string, token: string): Promise<WidgetEdit | null> {
      if (!UNDO_TOKEN_PATTERN.test(token)) return null;
      const row = await WidgetEdit.findById(rowId(connector, instanceId, token)).lean();
      if (!row || row.connector !== connector || row.instanceId !== instanceId || row.expiresAt.getTime() <= now()) return null;
      return {
        id: row._id,
        connector: row.connector,
        instanceId: row.instanceId,
        itemId: row.itemId,
        fields: row.fields.map(({ field, before, after }) => ({ field, before: before ?? '', after: after ?? '' })),
        state: { status: row.state.status, revisionId: row.state.revisionId ?? null, publishedRevisionId: row.state.publishedRevisionId ?? null },
        undoneAt: row.undoneAt ?? null,
        attempt: row.attempt ?? 0,
      };
    },

    /**
     * True for exactly one caller per change and attempt, across processes. A claim whose Undo
     * never finished (older than UNDO_CLAIM_STALE_MS) is taken over by one caller; that is safe
     * because an Undo writes only while the item still holds what the edit left.
     */
    // Stale means strictly older than UNDO_CLAIM_STALE_MS (whole milliseconds): lapsed from one past it.
    claim: (edit: WidgetEdit): Promise<boolean> => claims.onceOrLapsed(claimKey(edit), UNDO_CLAIM_STALE_MS + 1),

    /** Ends a claimed Undo: `undone` for good, or `open` again (refused or failed: the next click claims the next attempt). */
    async settle(edit: WidgetEdit, outcome: 'undone' | 'open'): Promise<void> {
      // Only the claim's winner writes the row, so this plain update has no concurrent writer.
      const set = outcome === 'undone' ? { undoneAt: new Date(now()) } : { attempt: edit.attempt + 1 };
      await WidgetEdit.updateOne({ _id: edit.id }, { $set: set });
    },

    /** Deletes expired rows where the server has no TTL index (FerretDB 1.x); elsewhere the index does it. */
    async forgetExpired(): Promise<number> {
      return (await WidgetEdit.collection.deleteMany({ expiresAt: { $lte: new Date(now()) } })).deletedCount;
    },
  };
}

export type WidgetEdits = ReturnType<typeof createWidgetEdits>;
