/** The token of an `Authorization: Bearer <token>` value (an HTTP header, or gRPC metadata), or null. */
export function bearerOf(authorization: string | null | undefined): string | null {
  const match = authorization ? /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization.trim()) : null;
  return match?.[1] ?? null;
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(request: Request): string | null {
  return bearerOf(request.headers.get('authorization'));
}
