/**
 * The navigation every page's banner shows, given by the console's router from the page list
 * (pages/index.ts). Kept apart from that list because the list imports every page module and every page
 * module draws the layout: the layout reading the list directly would close a circle of imports.
 */
import type { Role } from "../operators/roles";

export interface NavigationEntry {
  path: string;
  label: string;
  minRole: Role;
}

let entries: readonly NavigationEntry[] = [];

export function setNavigation(list: readonly NavigationEntry[]): void {
  entries = list;
}

export function navigationEntries(): readonly NavigationEntry[] {
  return entries;
}
