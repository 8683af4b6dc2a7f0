import { isDuplicateKeyError, runEventId, type Models } from '../db/index.ts';
import type { Logger } from '../log/index.ts';

const OLD_COLLECTIONS = ['run_events', 'run_leases', 'run_idempotency'];
const BATCH = 1_000;

/**
 * Moves a database written before ADR 0010 to the one `runs` collection: events from
 * `run_events` are copied under their new ids (in batches; a rerun after a crash skips what is
 * there), then the old collections are dropped. Leases and idempotency keys are not carried over:
 * unfinished runs get free lease rows from the recovery's first pass, and keys only matter for
 * retries of requests from before the upgrade. Returns the number of events moved.
 */
export async function moveRunsIntoOneCollection(models: Models, logger: Logger): Promise<number> {
  const db = models.Run.db.db!;
  const present = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).filter((name) => OLD_COLLECTIONS.includes(name));
  if (present.length === 0) return 0;
  let moved = 0;
  if (present.includes('run_events')) {
    const events = db.collection('run_events');
    const total = await events.estimatedDocumentCount();
    logger.info(`moving ${total} run events into the runs collection (once; ADR 0010)`);
    let after: unknown = null;
    for (;;) {
      const rows = await events.find(after === null ? {} : { _id: { $gt: after } } as never).sort({ _id: 1 }).limit(BATCH).toArray();
      if (rows.length === 0) break;
      const copies = rows.map((row) => ({ ...row, _id: runEventId(String(row.runId), Number(row.seq)) }));
      await models.RunEvent.collection.insertMany(copies as never[], { ordered: false }).catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
      moved += rows.length;
      after = rows[rows.length - 1]!._id;
      if (moved % 50_000 < BATCH) logger.info(`moved ${moved}/${total} run events`);
    }
  }
  for (const name of present) await db.dropCollection(name).catch(() => undefined);
  return moved;
}
