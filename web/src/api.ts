/**
 * Read-only access to the hub's REST API from the page (same origin, anonymous: the page holds
 * no keys, so it sees what any visitor may see). The one write-free POST is synthesis, which
 * creates nothing.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

async function answer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (res.ok) return body as T;
  const e = (body ?? {}) as { error?: string; code?: string };
  throw new ApiError(res.status, e.code ?? "HTTP", e.error ?? `The hub answered ${res.status}`, body);
}

/** GET a path with a query; throws ApiError for a non-2xx answer. */
export async function get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  const qs = q.toString();
  return answer<T>(await fetch(qs ? `${path}?${qs}` : path, { headers: { accept: "application/json" } }));
}

/** POST a JSON body (used only for synthesis, which stores nothing). */
export async function post<T>(path: string, body: unknown): Promise<T> {
  return answer<T>(
    await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
}

/** `/contracts/<id>` with the id escaped. */
export function contractPath(id: string, rest = ""): string {
  return `/contracts/${encodeURIComponent(id)}${rest}`;
}

/** The result of a GET, or null when the hub does not offer that route (404 no_route, 503 unavailable). */
export async function optional<T>(path: string): Promise<T | null> {
  try {
    return await get<T>(path);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 503 || err.status === 404 || err.status === 501)) return null;
    throw err;
  }
}
