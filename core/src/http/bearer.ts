/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  const match = header ? /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim()) : null;
  return match?.[1] ?? null;
}
