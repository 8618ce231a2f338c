/**
 * Roles and actors, as the console and the operator routes read them. Defined in src/kernel/roles.ts so
 * that the http layer, which knows no domain, can check a route's role; this is the domain's name for them.
 */
export { roleAllows, isRole, ROLES } from "../kernel/roles";
export type { Actor, Role } from "../kernel/roles";
