/** Requests and answers of the operator routes for operators (strict: an unknown field is a 400). */
import * as z from "zod";
import { ROLES } from "../kernel/roles";

const RoleSchema = z
  .enum(ROLES as ["viewer", "operator", "admin"])
  .describe(
    "viewer reads everything; operator also moves money and stock; admin also changes clients, keys, deals, rates, the catalogue and operators.",
  );

export const OperatorParams = z.object({
  operatorId: z
    .string()
    .regex(/^opr_[0-9a-f]{16}$/, "an operator id like opr_0123456789abcdef")
    .meta({ examples: ["opr_5c1f0e2a9b7d4e61"] }),
});

export const CreateOperatorRequest = z.strictObject({
  name: z.string().trim().min(1).max(100).describe("The person's name, as audit rows and the console show it."),
  role: RoleSchema,
});

export const ChangeRoleRequest = z.strictObject({ role: RoleSchema });

export const OperatorView = z.object({
  id: z.string(),
  name: z.string(),
  role: RoleSchema,
  createdAt: z.number().int(),
  revokedAt: z
    .number()
    .int()
    .nullable()
    .describe("When the operator was revoked (its token and sessions stopped); null while live."),
  createdBy: z
    .string()
    .nullable()
    .describe(
      "The credential that made it: `operator:<id>`, or `break-glass` for ADMIN_TOKEN; null for an operator made before this was kept. Dual control judges colleagues by it (docs/operator-api.md, Dual control).",
    ),
});

export const CreatedOperator = z.object({
  operator: OperatorView,
  token: z
    .string()
    .describe("The operator's token (opt_ and 64 hex digits), in this answer only: the service keeps its SHA-256."),
});

export const OperatorPage = z.object({ operators: z.array(OperatorView), next: z.string().nullable() });

export const ChangedOperator = z.object({
  operator: OperatorView,
  changed: z.boolean().describe("false when the operator already was so (no audit row written)."),
});
