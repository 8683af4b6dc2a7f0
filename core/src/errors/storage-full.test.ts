import { describe, expect, it } from 'vitest';
import { storageFullReason } from './storage-full.ts';

describe('recognising a full disk in a database error', () => {
  it.each([
    ['mongod', { code: 14031, codeName: 'OutOfDiskSpace', errmsg: 'Both the journal and data directories are out of space' }, 'out of disk space (OutOfDiskSpace)'],
    ['WiredTiger', { code: 8, errmsg: 'WT_ERROR: No space left on device' }, 'out of disk space (No space left on device)'],
    ['FerretDB on SQLite', { code: 1, message: 'sqlite: database or disk is full (13)' }, 'out of disk space (database or disk is full)'],
    ['FerretDB on PostgreSQL', { code: 1, errmsg: 'could not extend file "base/16384/2619": No space left on device' }, 'out of disk space (No space left on device)'],
    ['the file system', Object.assign(new Error('write failed'), { code: 'ENOSPC' }), 'out of disk space (ENOSPC)'],
    ['a wrapped cause', new Error('insert failed', { cause: { code: 14031 } }), 'out of disk space (OutOfDiskSpace)'],
    ['a bulk write', { code: 65, message: 'bulk write failed', writeErrors: [{ code: 14031 }] }, 'out of disk space (OutOfDiskSpace)'],
  ])('%s', (_, error, reason) => {
    expect(storageFullReason(error)).toBe(reason);
  });

  it('is null for any other failure, and never repeats the server message', () => {
    expect(storageFullReason({ code: 11000, errmsg: 'E11000 duplicate key' })).toBeNull();
    expect(storageFullReason(new Error('connection reset'))).toBeNull();
    expect(storageFullReason(null)).toBeNull();
    expect(storageFullReason({ code: 1, errmsg: 'could not extend file "base/16384/2619": No space left on device' })).not.toContain('base/16384');
  });
});
