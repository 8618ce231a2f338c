/**
 * Operator roles and the actor of a change. Kept in the kernel because the http layer checks a route's
 * role and carries the actor to its handler, and it may not import a domain; src/operators/roles.ts is
 * where the rest of the service reads them from.
 */

/** `viewer` reads everything and changes nothing; `operator` also moves money and stock; `admin` does all. */
export type Role = "viewer" | "operator" | "admin";

export const ROLES: readonly Role[] = ["viewer", "operator", "admin"];

const RANK: Readonly<Record<Role, number>> = { viewer: 0, operator: 1, admin: 2 };

/** Whether a caller holding `role` may do what needs `needed`: admin ⊇ operator ⊇ viewer. */
export function roleAllows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && Object.hasOwn(RANK, value);
}

/**
 * Who made a change, as every audit row names it: a named operator, or the break-glass ADMIN_TOKEN
 * (`label` tells its current and previous token apart: "admin:" and 8 hex digits of its SHA-256).
 */
export type Actor = { kind: "operator"; id: string; name: string } | { kind: "break-glass"; label?: string };

/**
 * The credential an actor's change is made with, as dual control counts it (docs/operator-api.md, Dual
 * control): a named operator's token is `operator:<id>`, the audit log's actor column; every value
 * ADMIN_TOKEN has had (its current and previous labels alike) is one credential, `break-glass`, so that a
 * rotation starts no new window.
 */
export function credentialOf(actor: Actor | { kind: "system"; name: string }): string {
  switch (actor.kind) {
    case "operator":
      return `operator:${actor.id}`;
    case "break-glass":
      return BREAK_GLASS;
    case "system":
      return `system:${actor.name}`;
  }
}

/** The break-glass token's credential: whatever its label, ADMIN_TOKEN is one. */
export const BREAK_GLASS = "break-glass";

/** The credential of an audit log's actor column (`operator:<id>`, `admin:<8 hex>` or `admin`, `system:…`). */
export function credentialOfColumn(actor: string): string {
  return actor === "admin" || actor.startsWith("admin:") ? BREAK_GLASS : actor;
}
