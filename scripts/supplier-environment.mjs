// Which upstream each environment may use, checked before the service starts (`npm start`) or is deployed
// (`npm run deploy`); the Worker holds the same rule per line (src/kernel/service-mode.ts, supplierRefusal).
// The sandbox's clients top themselves up without limit, so it must never buy real codes: it uses an upstream
// only when UPSTREAM_SANDBOX says UPSTREAM_BASE_URL is the supplier's own sandbox. Live must never sell a
// supplier's sandbox codes. Answers the problem in words, or null.

/** @param {{ SERVICE_MODE?: string, UPSTREAM_BASE_URL?: string, UPSTREAM_SANDBOX?: string }} vars */
export function upstreamMismatch(vars) {
  const live = vars.SERVICE_MODE !== "sandbox";
  const upstream = (vars.UPSTREAM_BASE_URL ?? "") !== "";
  const supplierSandbox = vars.UPSTREAM_SANDBOX === "true";
  if (!live && upstream && !supplierSandbox)
    return (
      `the sandbox would buy real codes: UPSTREAM_BASE_URL is set but UPSTREAM_SANDBOX is not "true". ` +
      `Point the sandbox at the supplier's own sandbox and set UPSTREAM_SANDBOX to "true", or leave UPSTREAM_BASE_URL empty`
    );
  if (live && supplierSandbox)
    return (
      `live would sell a supplier's sandbox codes: UPSTREAM_SANDBOX is "true". ` +
      `Set it to "false" and UPSTREAM_BASE_URL to the supplier's live API`
    );
  return null;
}
