// The rate limiter as Cloudflare runs it, for the bench's "local limiter" variant of the service: a counter
// kept in the isolate's memory per key and window, answered without leaving the isolate. Miniflare's own
// binding (the "simulator" variant) sends every limit() to a Durable Object that writes SQLite, a cost the
// service does not have on Cloudflare. The same bundle of src/ runs in both variants; only this entry
// differs, and it hands the service an env whose limiters are these counters.

/** A fixed-window counter with the binding's interface: `limit({ key })` → `{ success }`. */
class LocalRateLimiter {
  constructor(limit, periodSeconds) {
    this.limitValue = limit;
    this.periodMs = periodSeconds * 1000;
    this.windows = new Map();
  }

  async limit({ key }) {
    const now = Date.now();
    const window = this.windows.get(key);
    if (window === undefined || now - window.start >= this.periodMs) {
      if (this.windows.size > 10_000) this.windows.clear();
      this.windows.set(key, { start: now, count: 1 });
      return { success: 1 <= this.limitValue };
    }
    window.count += 1;
    return { success: window.count <= this.limitValue };
  }
}

const localEnvs = new WeakMap();

/** The env with every rate-limit binding named in `limiters` replaced by a local counter (one per isolate). */
function localEnv(env, limiters) {
  let local = localEnvs.get(env);
  if (local === undefined) {
    local = { ...env };
    for (const [name, { limit, period }] of Object.entries(limiters)) local[name] = new LocalRateLimiter(limit, period);
    localEnvs.set(env, local);
  }
  return local;
}

/** The Worker's handler with its limiters local; Durable Object classes are exported unchanged. */
export function withLocalLimiters(handler, limiters) {
  return {
    ...handler,
    fetch: (request, env, ctx) => handler.fetch(request, localEnv(env, limiters), ctx),
  };
}
