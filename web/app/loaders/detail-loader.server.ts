import { TRPCError } from '@trpc/server';

/**
 * What a detail page's loader found for the id in its address, or a 404 page: an id that names
 * nothing (null, NOT_FOUND) and one the procedure's input check refuses (BAD_REQUEST, the only
 * input being that id) are both "no such page", not an error with a stack in the log.
 */
export async function foundOr404<T>(load: Promise<T | null | undefined>, message: string): Promise<T> {
  let found: T | null | undefined;
  try {
    found = await load;
  } catch (error) {
    if (error instanceof TRPCError && (error.code === 'NOT_FOUND' || error.code === 'BAD_REQUEST')) throw notFound(message);
    throw error;
  }
  if (found === null || found === undefined) throw notFound(message);
  return found;
}

const notFound = (message: string) => new Response(message, { status: 404, statusText: 'Not Found' });
