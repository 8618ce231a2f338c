/**
 * The operators' roles, as the console and the operators' branch agreed them (issue 25): viewer reads
 * everything and changes nothing, operator also posts to wallets, uploads stock, replays dead letters and
 * enables and disables SKUs, admin also runs clients, keys, deals, rates, the catalogue and operators.
 */
export type Role = "viewer" | "operator" | "admin";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** Whether `role` may do what needs `needed`: admin ⊇ operator ⊇ viewer. */
export function roleAllows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/** Who made a change, as every audit row names it: a named operator, or the break-glass ADMIN_TOKEN. */
export type Actor = { kind: "operator"; id: string; name: string } | { kind: "break-glass" };
