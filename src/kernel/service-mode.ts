/**
 * Which environment this deployment is: the sandbox (test keys, helpers, no real money) or live. Read from
 * the SERVICE_MODE var (wrangler.toml: "live" at the top level, "sandbox" in [env.sandbox]; `npm start`
 * runs "sandbox"). Anything but "sandbox" is live, so a deployment that lost the var keeps its helpers off.
 */
export type ServiceMode = "sandbox" | "live";

export function serviceMode(env: Pick<Env, "SERVICE_MODE">): ServiceMode {
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
