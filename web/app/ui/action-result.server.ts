import { data } from '@remix-run/node';
import { TRPCError } from '@trpc/server';
import { isDomainError } from '@service/core/errors';

export interface ActionFailure {
  error: string;
  details: { path: string; reason: string }[] | null;
}

/**
 * Runs a form action; a refusal (TRPCError or DomainError) becomes a 4xx with its message and
 * findings for the page to show, instead of an error page. Redirects and other responses pass.
 */
export async function formAction<T>(work: () => Promise<T>) {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Response) throw error;
    const domain = error instanceof TRPCError && isDomainError(error.cause) ? error.cause : isDomainError(error) ? error : null;
    if (error instanceof TRPCError || domain) {
      const status = domain ? domain.httpStatus : 400;
      if (status >= 500 && domain?.code === 'INTERNAL') throw error;
      const details = Array.isArray(domain?.details) ? (domain.details as ActionFailure['details']) : null;
      return data<ActionFailure>({ error: domain ? domain.toPublicJSON().message : (error as Error).message, details }, { status: status < 400 ? 400 : status });
    }
    throw error;
  }
}
