import { fail } from "../kernel/failures";

/** Strict UTF-8: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * The body as UTF-8 text, at most `maxBytes` of it, measured as it arrives (a Content-Length can be
 * absent, and is checked against what came). Oversized: 413; not UTF-8: 400.
 */
export async function readText(request: Request, maxBytes: number): Promise<string> {
  const bytes = await readBytes(request, maxBytes);
  if (bytes === null) fail("payload_too_large", { maxBytes });
  try {
    return UTF8.decode(bytes);
  } catch {
    fail("malformed_json", { reason: "body is not UTF-8" });
  }
}

/**
 * The body's bytes, or null when it is over `maxBytes`: a declared Content-Length over it is refused
 * before anything is read, and a body without one (chunked) is counted as it arrives and cut off past it.
 */
export async function readBytes(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) return null;
  // A declared length frames the body: it cannot run past it, so it is read in one step (and measured
  // again). A body without one, or with one that is not a number, is counted as it arrives.
  const bytes = Number.isFinite(declared)
    ? new Uint8Array(await request.arrayBuffer())
    : await readCounted(request, maxBytes);
  return bytes === null || bytes.byteLength > maxBytes ? null : bytes;
}

async function readCounted(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > maxBytes) {
        await reader.cancel();
        return null;
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** A JSON body of at most `maxBytes`: 413 when larger, 400 when it is not JSON. */
export async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const text = await readText(request, maxBytes);
  if (text.trim() === "") fail("malformed_json", { reason: "body is empty" });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    fail("malformed_json", { reason: (error as Error).message });
  }
}

/**
 * zod's issues (of a ZodError, or of a schema's Standard Schema `validate`) in a form a client can read:
 * path and message of each.
 */
export function issuesOf(error: {
  readonly issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] | undefined }[];
}): {
  issues: { path: string; message: string }[];
} {
  return {
    issues: error.issues.map((issue) => ({
      path: (issue.path ?? []).map((key) => String(typeof key === "object" ? key.key : key)).join(".") || "(body)",
      message: issue.message,
    })),
  };
}
