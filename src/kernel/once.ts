/**
 * `load` run once and its promise shared by every caller; asked again if it failed, so that one failure is
 * not kept for the isolate's life. What that can mend: a failure outside the loaded modules themselves (a
 * module whose top level threw is not evaluated again, in a bundle or elsewhere). Used for what the Worker
 * loads on first use (src/app.ts, src/http/router.ts).
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | null = null;
  return () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = null;
      throw error;
    }));
}
