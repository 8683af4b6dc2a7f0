export type SeamHandler = (request: Request, params: Record<string, string>) => Promise<Response>;

interface CompiledRoute {
  pattern: string;
  segments: string[];
  handle: SeamHandler;
}

/**
 * The machine-facing routes (A2A, OAuth, bridges, MCP, widget API, discovery, health), matched
 * by path before the admin UI's router sees the request: `:name` segments become params, the
 * rest must match exactly. Routes are compiled once; a match is a split and a comparison.
 */
export function createSeamRouter(routes: Record<string, SeamHandler>) {
  const compiled: CompiledRoute[] = Object.entries(routes).map(([pattern, handle]) => ({ pattern, segments: pattern.split('/'), handle }));

  /** The route serving `pathname` (its pattern, handler and params), or null when none does (the UI serves it). */
  function match(pathname: string): { pattern: string; handle: SeamHandler; params: Record<string, string> } | null {
    const parts = pathname.split('/');
    for (const route of compiled) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < parts.length && matched; i++) {
        const segment = route.segments[i]!;
        if (segment.startsWith(':')) {
          let value: string;
          try {
            value = decodeURIComponent(parts[i]!);
          } catch {
            matched = false;
            break;
          }
          if (!value) matched = false;
          else params[segment.slice(1)] = value;
        } else if (segment !== parts[i]) matched = false;
      }
      if (matched) return { pattern: route.pattern, handle: route.handle, params };
    }
    return null;
  }

  return { match };
}

export type SeamRouter = ReturnType<typeof createSeamRouter>;
