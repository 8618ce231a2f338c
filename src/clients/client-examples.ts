/**
 * Examples of the operator client routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

export const clientExamples = {
  adminCreateClient: {
    request: {
      id: "acme",
      name: "Acme Gifts Ltd",
      keyLabel: "production",
      region: "apac",
    },
    data: {
      client: {
        id: "acme",
        name: "Acme Gifts Ltd",
        createdAt: 1795345078741,
        disabledAt: null,
        region: "apac",
      },
      apiKey: "sk_live_5c796c9b6a261eee63fa8ebd68725f73d65ceddb51167bc16bd0f5eaab879aeb",
      key: {
        keyId: "key_328bd1c026147932",
        label: "production",
        createdAt: 1795345078741,
        revokedAt: null,
        scopes: "all",
        allowedIps: null,
      },
      webhookSecret: "whsec_f0466f7f7c5c2f1e5553535b93cb4abd9e3cc642a4eaea80ab5fe199fca30fb0",
    },
  },
  adminListClients: {
    data: {
      clients: [
        {
          id: "acme",
          name: "Acme Gifts Ltd",
          createdAt: 1795345078741,
          disabledAt: null,
          region: "apac",
        },
      ],
      next: "acme",
    },
  },
  adminGetClient: {
    data: {
      client: {
        id: "acme",
        name: "Acme Gifts Ltd",
        createdAt: 1795345078741,
        disabledAt: null,
        region: "apac",
      },
      keys: [
        {
          keyId: "key_328bd1c026147932",
          label: "production",
          createdAt: 1795345078741,
          revokedAt: 1795345078797,
          scopes: "all",
          allowedIps: null,
        },
        {
          keyId: "key_46eb07dbfccedbcd",
          label: "finance",
          createdAt: 1795345078756,
          revokedAt: 1795345078775,
          scopes: ["books:read"],
          allowedIps: ["203.0.113.7", "198.51.100.0/24"],
        },
        {
          keyId: "key_0d71c46d5fc82dd7",
          label: "production-2026-12",
          createdAt: 1795345078797,
          revokedAt: null,
          scopes: "all",
          allowedIps: null,
        },
      ],
      wallets: [
        {
          currency: "USD",
          balance: 487.5,
        },
      ],
    },
  },
  adminIssueKey: {
    request: {
      label: "finance",
      scopes: ["books:read"],
      allowedIps: ["203.0.113.7", "198.51.100.0/24"],
    },
    data: {
      clientId: "acme",
      apiKey: "sk_live_109692b5e4a06ac742cbe640a2c7e4c544f34815cf8d932dba352fcce64849fd",
      key: {
        keyId: "key_46eb07dbfccedbcd",
        label: "finance",
        createdAt: 1795345078756,
        revokedAt: null,
        scopes: ["books:read"],
        allowedIps: ["203.0.113.7", "198.51.100.0/24"],
      },
      revokedKeyIds: [],
    },
  },
  adminSetKeyAccess: {
    request: {
      scopes: ["books:read", "orders:read"],
      allowedIps: ["198.51.100.0/24"],
    },
    data: {
      clientId: "acme",
      key: {
        keyId: "key_46eb07dbfccedbcd",
        label: "finance",
        createdAt: 1795345078756,
        revokedAt: null,
        scopes: ["orders:read", "books:read"],
        allowedIps: ["198.51.100.0/24"],
      },
    },
  },
  adminRevokeKey: {
    data: {
      clientId: "acme",
      key: {
        keyId: "key_46eb07dbfccedbcd",
        label: "finance",
        createdAt: 1795345078756,
        revokedAt: 1795345078775,
        scopes: ["books:read"],
        allowedIps: ["203.0.113.7", "198.51.100.0/24"],
      },
    },
  },
  adminRotateKeys: {
    request: {
      label: "production-2026-12",
    },
    data: {
      clientId: "acme",
      apiKey: "sk_live_b12d86d115f2c05c1051d61e274b77daea256db63223d49e831ffa9698aead96",
      key: {
        keyId: "key_0d71c46d5fc82dd7",
        label: "production-2026-12",
        createdAt: 1795345078797,
        revokedAt: null,
        scopes: "all",
        allowedIps: null,
      },
      revokedKeyIds: ["key_328bd1c026147932"],
    },
  },
  adminRotateWebhookSecret: {
    data: {
      clientId: "acme",
      webhookSecret: "whsec_6d74919cbfaf326abf4703347de58e3d75dbb3132a1c08428a87dacc25d941b5",
    },
  },
  adminDisableClient: {
    data: {
      client: {
        id: "acme",
        name: "Acme Gifts Ltd",
        createdAt: 1795345078741,
        disabledAt: 1795345079120,
        region: "apac",
      },
    },
  },
  adminEnableClient: {
    data: {
      client: {
        id: "acme",
        name: "Acme Gifts Ltd",
        createdAt: 1795345078741,
        disabledAt: null,
        region: "apac",
      },
    },
  },
  adminSetClientRegion: {
    request: { region: "apac" },
    data: {
      client: {
        id: "acme",
        name: "Acme Gifts Ltd",
        createdAt: 1795345078741,
        disabledAt: null,
        region: "apac",
      },
      moved: [
        {
          currency: "USD",
          from: { generation: 0, region: null },
          to: { generation: 1, region: "apac" },
          amount: 445.65,
        },
      ],
    },
  },
} satisfies Record<string, RouteExample>;
