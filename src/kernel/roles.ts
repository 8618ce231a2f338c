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
