/**
 * What of a redeem code may be shown without revealing it, on every surface (the operator API's order
 * lookup, the console's order page): a code is money, so a masked code shows at most its last 4
 * characters, only when they are at most a quarter of it, and nothing at all of a code shorter than 16
 * characters. A 4-character PIN or a 6-digit one is masked whole; a 16-character card number keeps 12
 * characters secret. The whole code is shown only through an audited reveal (docs/operator-api.md).
 */

/** The shortest code whose tail is shown: its last 4 characters are then at most a quarter of it. */
export const SHORTEST_CODE_WITH_TAIL = 16;
const TAIL = 4;

/** A code masked: `••••`, and its last 4 characters after a space when it has at least 16. */
export function maskedCode(code: string): string {
  const characters = [...code];
  if (characters.length < SHORTEST_CODE_WITH_TAIL) return "••••";
  return `•••• ${characters.slice(-TAIL).join("")}`;
}
