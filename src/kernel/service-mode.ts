/**
 * Which environment this deployment is: the sandbox (test keys, helpers, no real money) or live. Read from
 * the SERVICE_MODE var (wrangler.toml: "live" at the top level, "sandbox" in [env.sandbox]; `npm start`
 * runs "sandbox"). Anything but "sandbox" is live, so a deployment that lost the var keeps its helpers off.
 */
export type ServiceMode = "sandbox" | "live";

export function serviceMode(env: { SERVICE_MODE?: string }): ServiceMode {
  return env.SERVICE_MODE === "sandbox" ? "sandbox" : "live";
}

/** The prefix of the API keys each environment issues. */
export const API_KEY_PREFIX: Readonly<Record<ServiceMode, string>> = { sandbox: "sk_test_", live: "sk_live_" };

/**
 * The environment a key's prefix names, or null for a key with neither prefix: such a key is judged by the
 * key lookup alone (each environment has its own D1, so it works only where it was issued).
 */
export function modeOfKey(key: string): ServiceMode | null {
  if (key.startsWith(API_KEY_PREFIX.live)) return "live";
  if (key.startsWith(API_KEY_PREFIX.sandbox)) return "sandbox";
  return null;
}

/**
 * Why a supplier kind may not serve this environment, or null when it may. Live never hands out the
 * sandbox supplier's codes (predictable hashes) nor a supplier's own sandbox's (UPSTREAM_SANDBOX "true");
 * the sandbox, whose clients top themselves up without limit, never buys real codes: it uses an upstream
 * only when UPSTREAM_SANDBOX says UPSTREAM_BASE_URL is the supplier's own sandbox. `npm start` and
 * `npm run deploy` refuse such a configuration up front (scripts/supplier-environment.mjs). The kinds are the catalogue's suppliers (inventory, sandbox, upstream).
 */
export function supplierRefusal(
  kind: string,
  env: { SERVICE_MODE?: string; UPSTREAM_SANDBOX?: string },
): string | null {
  const live = serviceMode(env) === "live";
  const supplierSandbox = env.UPSTREAM_SANDBOX === "true";
  if (live && kind === "sandbox") return "the sandbox supplier issues no codes in live";
  if (live && kind === "upstream" && supplierSandbox)
    return "live does not use a supplier's sandbox (UPSTREAM_SANDBOX is true)";
  if (!live && kind === "upstream" && !supplierSandbox)
    return "the sandbox uses an upstream only when UPSTREAM_SANDBOX marks it as the supplier's own sandbox";
  return null;
}
