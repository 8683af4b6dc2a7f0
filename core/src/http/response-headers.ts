/**
 * `response` with `headers` set: in place when its headers can change, on a copy when they are
 * immutable (a Response passed on from fetch, or made by `Response.redirect`). `keep`: a header
 * the response already has stays as it is.
 */
export function withHeaders(response: Response, headers: Readonly<Record<string, string>>, options: { keep?: boolean } = {}): Response {
  const apply = (target: Headers) => {
    for (const [name, value] of Object.entries(headers)) if (!options.keep || !target.has(name)) target.set(name, value);
  };
  try {
    apply(response.headers);
    return response;
  } catch {
    const copy = new Headers(response.headers);
    apply(copy);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: copy });
  }
}
