import { z } from "zod";
import { fail } from "./errors";

/**
 * Reads a JSON body of at most `maxBytes`, counting what actually arrives (a Content-Length can be absent
 * or wrong). Oversized: 413; not JSON: 400.
 */
export async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) fail("payload_too_large", { maxBytes });
  const bytes = new Uint8Array(maxBytes);
  let length = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (length + value.byteLength > maxBytes) {
        await reader.cancel();
        fail("payload_too_large", { maxBytes });
      }
      bytes.set(value, length);
      length += value.byteLength;
    }
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes.subarray(0, length));
  } catch {
    fail("malformed_json", { reason: "body is not UTF-8" });
  }
  if (text.trim() === "") fail("malformed_json", { reason: "body is empty" });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    fail("malformed_json", { reason: (error as Error).message });
  }
}

/** zod's issues in a form a client can read: path and message of each. */
export function issuesOf(error: z.ZodError): { issues: { path: string; message: string }[] } {
  return {
    issues: error.issues.map((issue) => ({
      path: issue.path.map(String).join(".") || "(body)",
      message: issue.message,
    })),
  };
}
