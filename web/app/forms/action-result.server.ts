import { data } from '@remix-run/node';
import { TRPCError } from '@trpc/server';
import { isDomainError } from '@service/core/errors';

export interface ActionFailure {
  error: string;
  /** The DomainError's code, so the page can link to where a configuration error is fixed. */
  code?: string;
  details: { path: string; reason: string }[] | null;
}

/** A refusal an action shows on its page: its status (4xx, or a DomainError's own), message, code and findings. */
export interface Refusal {
  status: number;
  message: string;
  code: string | undefined;
  details: unknown[];
}

/**
 * What a thrown error means to an action: a refusal (TRPCError or DomainError) to show on the
 * page, or null for anything else (a bug, an outage, an INTERNAL error), which the caller rethrows
 * to the error boundary.
 */
export function refusalOf(error: unknown): Refusal | null {
  const domain = error instanceof TRPCError && isDomainError(error.cause) ? error.cause : isDomainError(error) ? error : null;
  if (!(error instanceof TRPCError) && !domain) return null;
  const status = domain ? domain.httpStatus : 400;
  if (status >= 500 && domain?.code === 'INTERNAL') return null;
  return {
    status: status < 400 ? 400 : status,
    message: domain ? domain.toPublicJSON().message : plainTrpcMessage(error as TRPCError),
    code: domain?.code,
    details: Array.isArray(domain?.details) ? (domain.details as unknown[]) : [],
  };
}

/** A tRPC input refusal carries zod's issue list as its message; never show that serialized. */
function plainTrpcMessage(error: TRPCError): string {
  if (error.code === 'BAD_REQUEST' && error.message.trimStart().startsWith('[')) return 'Some values were refused: check the fields and try again.';
  return error.message;
}

/**
 * Runs a form action; a refusal becomes a 4xx with its message and findings for the page to
 * show, instead of an error page. Redirects and other responses pass.
 */
export async function formAction<T>(work: () => Promise<T>) {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Response) throw error;
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    return data<ActionFailure>({ error: refusal.message, ...(refusal.code ? { code: refusal.code } : {}), details: refusal.details.length ? (refusal.details as ActionFailure['details']) : null }, { status: refusal.status });
  }
}
