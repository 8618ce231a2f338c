import { env } from "cloudflare:workers";
import type { Role } from "../../src/operators/roles";
import type { PageAnswer, PageContext, PageModule, SessionOperator } from "../../src/console/page";

/** The probe every escaping test writes into fields a client or an operator chose. */
export const PROBE = "<img src=x onerror=alert(1)>";
export const PROBE_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;";

export function operatorOf(role: Role, name = `Test ${role}`): SessionOperator {
  return { operatorId: `op_${role}`, name, role, sessionId: `ses_${role}` };
}

/** A page module's answer to a GET or a POST, as the console's router would call it (session and role already checked). */
export async function callPage(
  module: PageModule,
  method: "GET" | "POST",
  url: string,
  options: { role?: Role; name?: string; params?: Record<string, string>; form?: Record<string, string | File> } = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  let body: FormData | undefined;
  if (options.form !== undefined) {
    body = new FormData();
    for (const [name, value] of Object.entries(options.form)) body.set(name, value);
  }
  const request = new Request(`http://orders.test${url}`, { method, body, headers: { origin: "http://orders.test" } });
  const ctx: PageContext = {
    request,
    env,
    operator: operatorOf(options.role ?? "admin", options.name),
    url: new URL(request.url),
    params: options.params ?? {},
    requestId: `test-${crypto.randomUUID()}`,
  };
  const answer: PageAnswer = method === "GET" ? await module.get(ctx) : await module.post!(ctx);
  if (answer instanceof Response) return { status: answer.status, text: await answer.text(), headers: answer.headers };
  return { status: 200, text: answer.toString(), headers: new Headers({ "content-type": "text/html; charset=utf-8" }) };
}
