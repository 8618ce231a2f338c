/**
 * Examples of the audit route in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

export const auditExamples = {
  adminListAudit: {
    data: {
      entries: [
        {
          id: 1,
          at: 1795345078741,
          actor: "admin:17d6bfe0",
          actorName: null,
          action: "client.create",
          target: "client:acme",
          requestId: "req_99aaba761ebd4c10bae719f96ccfec29",
          details: {
            name: "Acme Gifts Ltd",
            keyId: "key_328bd1c026147932",
            keyLabel: "production",
            region: "apac",
          },
        },
      ],
      next: "1",
    },
  },
} satisfies Record<string, RouteExample>;
