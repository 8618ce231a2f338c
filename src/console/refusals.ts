/**
 * How the console shows a domain's refusal (a Refusal thrown by an action or a store): the form field it
 * concerns and the words, from one table, where the API answers the same Refusal with its code's status
 * and error body. A code the table does not name is shown as its message, with its reason or its issues,
 * on the form as a whole.
 */
import type { Failure, FailureCode } from "../kernel/failures";
import { Refusal } from "../kernel/failures";
import { FormError } from "./forms";

interface Shown {
  /** The form field the refusal concerns ("form" for the form as a whole); null: the page's fallback. */
  field: (failure: Failure) => string | null;
  text: (failure: Failure) => string;
}

/** The first of zod's issues a 400 carries, as the form field its path starts with and its message. */
function firstIssue(failure: Failure): { field: string | null; message: string | null } {
  const issues = (failure.details?.issues ?? []) as { path?: string; message?: string }[];
  const first = issues[0];
  return { field: first?.path?.split(".")[0] || null, message: first?.message ?? null };
}

const REFUSALS: Partial<Record<FailureCode, Shown>> = {
  invalid_request_body: {
    field: (failure) => firstIssue(failure).field,
    text: (failure) =>
      firstIssue(failure).message ??
      (typeof failure.details?.reason === "string" ? failure.details.reason : failure.message),
  },
  client_exists: { field: () => "id", text: () => "A client with this id already exists." },
  sku_not_found: { field: () => "sku", text: () => "No SKU has this name." },
  deal_not_found: { field: () => "form", text: () => "That deal was already deleted." },
  api_key_not_found: { field: () => "form", text: () => "The client has no such key." },
  adjustment_below_zero: {
    field: () => "amount",
    text: (failure) => `That would take the balance below zero (it is ${String(failure.details?.balance ?? "")}).`,
  },
  decider_not_allowed: {
    field: () => "form",
    text: (failure) =>
      `You may not decide this request: ${String(failure.details?.reason ?? "another person must decide it")}.`,
  },
  idempotency_key_posted: {
    field: () => "form",
    text: () => "The wallet already holds a posting under this form's key; reload the page for a new form.",
  },
  limit_request_closed: {
    field: () => "form",
    text: (failure) =>
      `This limit request is ${String(failure.details?.status ?? "closed")} now: nothing more was done.`,
  },
  posting_request_closed: {
    field: () => "form",
    text: (failure) => `This request is ${String(failure.details?.status ?? "closed")} now: nothing more was done.`,
  },
  idempotency_conflict: {
    field: () => "form",
    text: () => "This form was already posted with other values; reload the page for a new form.",
  },
};

/**
 * A refusal as the error of a form whose fields are `fields`: on the field the table names (for a 400,
 * the first issue's path; `fallback` when it has none) when the form has it, on the form as a whole
 * otherwise. A FormError is passed through. Null for anything else, which the page lets the router answer.
 */
export function formErrorOf(error: unknown, fields: readonly string[], fallback = "form"): FormError | null {
  if (error instanceof FormError) return error;
  if (!(error instanceof Refusal)) return null;
  const shown = REFUSALS[error.failure.code];
  if (shown === undefined) return null;
  const named = shown.field(error.failure) ?? fallback;
  const field = fields.includes(named) ? named : "form";
  return new FormError(field, shown.text(error.failure));
}

/**
 * A refusal as the error of a form whose page shows every refusal of its change beside the form: as
 * formErrorOf, and a code the table does not name on the form as a whole, in refusalText's words, rather
 * than left to the router's page. Null for anything that is not a refusal.
 */
export function shownOnForm(error: unknown, fields: readonly string[]): FormError | null {
  const shown = formErrorOf(error, fields);
  if (shown !== null || !(error instanceof Refusal)) return shown;
  return new FormError("form", refusalText(error));
}

/**
 * A refusal as one line for a notice: the table's words, or (a 400, or a code it does not name) the code's
 * message with its reason or every issue.
 */
export function refusalText(error: Refusal): string {
  const shown = REFUSALS[error.failure.code];
  if (shown !== undefined && error.failure.code !== "invalid_request_body") return shown.text(error.failure);
  const details = error.failure.details ?? {};
  if (typeof details.reason === "string") return `${error.failure.message}: ${details.reason}`;
  if (Array.isArray(details.issues)) {
    return `${error.failure.message}: ${(details.issues as { path: string; message: string }[]).map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`;
  }
  return error.failure.message;
}
