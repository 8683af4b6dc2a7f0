import { readFileSync } from 'node:fs';
import mongoose from 'mongoose';

/**
 * The `runs` collection exactly as the engine of 5e5bd08 (the run layout of ADR 0010) wrote it for
 * seven runs: completed (with an Idempotency-Key, a data part with keys a server would refuse, a
 * file part), paused for input, answered and completed, canceled while paused, working with one
 * step done and a dead worker's lease, failed, and one bridged from a peer. For tests of the
 * conversion to the current layout (migrations/).
 */
export function runsLayout1(): { runs: Record<string, unknown>[]; runIds: Record<'completed' | 'paused' | 'answered' | 'canceled' | 'orphan' | 'failed' | 'remote', string> } {
  return mongoose.mongo.BSON.EJSON.parse(readFileSync(new URL('../migrations/fixtures/runs-layout-1.ejson', import.meta.url), 'utf8')) as ReturnType<typeof runsLayout1>;
}
