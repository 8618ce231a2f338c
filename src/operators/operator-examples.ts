/**
 * Examples of the operator routes for operators in GET /openapi.json (test/openapi/examples.test.ts checks
 * that each has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

const dana = {
  id: "opr_5c1f0e2a9b7d4e61",
  name: "Dana Support",
  role: "operator",
  createdAt: 1795345078741,
  revokedAt: null,
  createdBy: "break-glass",
};

export const operatorExamples = {
  adminCreateOperator: {
    request: { name: "Dana Support", role: "operator" },
    data: { operator: dana, token: "opt_2b9f6c0d51e84a7f9c3e1d2b4a6f8e0c7d5b3a1f9e7c5d3b1a9f7e5c3d1b9a7f" },
  },
  adminListOperators: { data: { operators: [dana], next: "opr_5c1f0e2a9b7d4e61" } },
  adminChangeOperatorRole: {
    request: { role: "viewer" },
    data: { operator: { ...dana, role: "viewer" }, changed: true },
  },
  adminRevokeOperator: { data: { operator: { ...dana, revokedAt: 1795348678741 }, changed: true } },
} satisfies Record<string, RouteExample>;
