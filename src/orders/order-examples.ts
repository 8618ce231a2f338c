/**
 * Examples of the order routes and the operator order routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

/** An order as the operator sees it: the same answer by id (GET /admin/orders/:orderId) and by reference. */
const adminOrderData = {
  clientId: "demo",
  reference: "po-2026-0042",
  state: "successful",
  order: {
    uid: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
    state: "successful",
    products: {
      "DEMO-EU-FIXED": {
        request: {
          quote: 25,
          quantity: 2
        },
        customerDeal: {
          dealState: "none",
          fee: {
            amount: 0,
            adjustmentMode: "fixed"
          },
          discount: {
            amount: 0,
            adjustmentMode: "fixed"
          }
        },
        sku: "DEMO-EU-FIXED",
        shopItem: {
          country: "DE",
          quote: 25,
          name: "Demo EU voucher",
          region: "Europe",
          productType: "fixed",
          baseCurrency: "EUR"
        }
      },
      "DEMO-JP-RANGE": {
        request: {
          quote: 1000,
          quantity: 1
        },
        customerDeal: {
          dealState: "none",
          fee: {
            amount: 0,
            adjustmentMode: "fixed"
          },
          discount: {
            amount: 0,
            adjustmentMode: "fixed"
          }
        },
        sku: "DEMO-JP-RANGE",
        shopItem: {
          country: "JP",
          quote: 1000,
          name: "Demo Japan top-up",
          region: "Asia",
          productType: "range",
          baseCurrency: "JPY"
        }
      }
    },
    exchangeRates: [
      {
        baseCurrency: "USD",
        targetCurrency: "EUR",
        rate: 0.92,
        modifiedDate: {
          _seconds: 1767225600,
          _nanoseconds: 0
        }
      },
      {
        baseCurrency: "USD",
        targetCurrency: "JPY",
        rate: 150,
        modifiedDate: {
          _seconds: 1767225600,
          _nanoseconds: 0
        }
      }
    ],
    invoice: {
      total: 61.02,
      wallet: "USD",
      records: [
        {
          total: {
            EUR: 50,
            USD: 54.35
          },
          sku: "DEMO-EU-FIXED",
          items: [
            {
              type: "main-product",
              description: "2 × Demo EU voucher at 25 EUR",
              effect: {
                amount: 50,
                currency: "EUR"
              },
              metaData: {
                quantity: 2,
                quote: 25
              }
            },
            {
              type: "exchange-target-currency",
              description: "Exchange out of EUR",
              effect: {
                amount: -50,
                currency: "EUR"
              },
              metaData: {
                baseCurrency: "USD",
                targetCurrency: "EUR",
                rate: 0.92,
                modifiedDate: {
                  _seconds: 1767225600,
                  _nanoseconds: 0
                }
              }
            },
            {
              type: "exchange-base-currency",
              description: "Payment in USD at 0.92 EUR per USD",
              effect: {
                amount: 54.35,
                currency: "USD"
              },
              metaData: {
                baseCurrency: "USD",
                targetCurrency: "EUR",
                rate: 0.92,
                modifiedDate: {
                  _seconds: 1767225600,
                  _nanoseconds: 0
                }
              }
            }
          ]
        },
        {
          total: {
            JPY: 1000,
            USD: 6.67
          },
          sku: "DEMO-JP-RANGE",
          items: [
            {
              type: "main-product",
              description: "1 × Demo Japan top-up at 1000 JPY",
              effect: {
                amount: 1000,
                currency: "JPY"
              },
              metaData: {
                quantity: 1,
                quote: 1000
              }
            },
            {
              type: "exchange-target-currency",
              description: "Exchange out of JPY",
              effect: {
                amount: -1000,
                currency: "JPY"
              },
              metaData: {
                baseCurrency: "USD",
                targetCurrency: "JPY",
                rate: 150,
                modifiedDate: {
                  _seconds: 1767225600,
                  _nanoseconds: 0
                }
              }
            },
            {
              type: "exchange-base-currency",
              description: "Payment in USD at 150 JPY per USD",
              effect: {
                amount: 6.67,
                currency: "USD"
              },
              metaData: {
                baseCurrency: "USD",
                targetCurrency: "JPY",
                rate: 150,
                modifiedDate: {
                  _seconds: 1767225600,
                  _nanoseconds: 0
                }
              }
            }
          ]
        }
      ],
      paymentMethod: "wallet",
      status: "paid"
    },
    createdDate: {
      _seconds: 1795345078,
      _nanoseconds: 500000000
    },
    modifiedDate: {
      _seconds: 1795345078,
      _nanoseconds: 620000000
    },
    redeem: {
      "DEMO-EU-FIXED": {
        redeemPin: [
          "DEMO-EU-25-0001",
          "DEMO-EU-25-0002"
        ],
        currency: "EUR",
        redeemLink: "https://redeem.example.com/eu/DEMO-EU-25-0001",
        redeemLinks: [
          "https://redeem.example.com/eu/DEMO-EU-25-0001",
          "https://redeem.example.com/eu/DEMO-EU-25-0002"
        ],
        value: 25
      },
      "DEMO-JP-RANGE": {
        redeemPin: [
          "SBX-0DEA1-85569-96C12-DFF0A"
        ],
        currency: "JPY",
        redeemLink: "https://redeem.example.com/sandbox/SBX-0DEA1-85569-96C12-DFF0A",
        redeemLinks: [
          "https://redeem.example.com/sandbox/SBX-0DEA1-85569-96C12-DFF0A"
        ],
        value: 1000
      }
    },
    reference: "po-2026-0042",
    livemode: false
  },
  record: {
    id: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
    clientId: "demo",
    reference: "po-2026-0042",
    requestHash: "9cc52dc751632d8010a0ade3f6f1061607965f40b35a384592735bc2fda6aeee",
    webhookUrl: null,
    wallet: "USD",
    state: "successful",
    createdAt: 1795345078500,
    modifiedAt: 1795345078620,
    expiresAt: 1795345678500,
    lines: [
      {
        sku: "DEMO-EU-FIXED",
        productType: "fixed",
        quote: "25",
        quantity: 2,
        product: {
          name: "Demo EU voucher",
          country: "DE",
          region: "Europe",
          currency: "EUR",
          supplier: "inventory",
          supplierConfig: {}
        },
        deal: {
          dealState: "none",
          fee: {
            amount: "0",
            adjustmentMode: "fixed"
          },
          discount: {
            amount: "0",
            adjustmentMode: "fixed"
          }
        },
        faceValue: "50",
        fee: "0",
        discount: "0",
        lineTotal: "50",
        charge: "54.35",
        retailCharge: "54.35",
        rate: {
          baseCurrency: "USD",
          targetCurrency: "EUR",
          rate: "0.92",
          modifiedAt: 1767225600000
        },
        status: "fulfilled",
        attempts: 1,
        redeem: {
          pins: [
            "DEMO-EU-25-0001",
            "DEMO-EU-25-0002"
          ],
          links: [
            "https://redeem.example.com/eu/DEMO-EU-25-0001",
            "https://redeem.example.com/eu/DEMO-EU-25-0002"
          ],
          currency: "EUR",
          value: "25"
        },
        refunded: "0",
        failureReason: null
      },
      {
        sku: "DEMO-JP-RANGE",
        productType: "range",
        quote: "1000",
        quantity: 1,
        product: {
          name: "Demo Japan top-up",
          country: "JP",
          region: "Asia",
          currency: "JPY",
          supplier: "sandbox",
          supplierConfig: {}
        },
        deal: {
          dealState: "none",
          fee: {
            amount: "0",
            adjustmentMode: "fixed"
          },
          discount: {
            amount: "0",
            adjustmentMode: "fixed"
          }
        },
        faceValue: "1000",
        fee: "0",
        discount: "0",
        lineTotal: "1000",
        charge: "6.67",
        retailCharge: "6.67",
        rate: {
          baseCurrency: "USD",
          targetCurrency: "JPY",
          rate: "150",
          modifiedAt: 1767225600000
        },
        status: "fulfilled",
        attempts: 1,
        redeem: {
          pins: [
            "SBX-0DEA1-85569-96C12-DFF0A"
          ],
          links: [
            "https://redeem.example.com/sandbox/SBX-0DEA1-85569-96C12-DFF0A"
          ],
          currency: "JPY",
          value: "1000"
        },
        refunded: "0",
        failureReason: null
      }
    ],
    rates: [
      {
        baseCurrency: "USD",
        targetCurrency: "EUR",
        rate: "0.92",
        modifiedAt: 1767225600000
      },
      {
        baseCurrency: "USD",
        targetCurrency: "JPY",
        rate: "150",
        modifiedAt: 1767225600000
      }
    ],
    charge: "61.02",
    retailCharge: "61.02",
    invoiceStatus: "paid",
    chargeIntentAt: null
  }
};

export const orderExamples = {
  createOrder: {
    request: {
      productList: [
        {
          sku: "DEMO-EU-FIXED",
          productType: "fixed",
          quote: 25,
          quantity: 2
        },
        {
          sku: "DEMO-JP-RANGE",
          productType: "range",
          quote: 1000,
          quantity: 1
        }
      ],
      wallet: "USD",
      reference: "po-2026-0042"
    },
    data: {
      id: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
      exchangeRates: [
        {
          baseCurrency: "USD",
          targetCurrency: "EUR",
          rate: 0.92,
          modifiedDate: {
            _seconds: 1767225600,
            _nanoseconds: 0
          }
        },
        {
          baseCurrency: "USD",
          targetCurrency: "JPY",
          rate: 150,
          modifiedDate: {
            _seconds: 1767225600,
            _nanoseconds: 0
          }
        }
      ],
      invoice: {
        total: 61.02,
        wallet: "USD",
        records: [
          {
            total: {
              EUR: 50,
              USD: 54.35
            },
            sku: "DEMO-EU-FIXED",
            items: [
              {
                type: "main-product",
                description: "2 × Demo EU voucher at 25 EUR",
                effect: {
                  amount: 50,
                  currency: "EUR"
                },
                metaData: {
                  quantity: 2,
                  quote: 25
                }
              },
              {
                type: "exchange-target-currency",
                description: "Exchange out of EUR",
                effect: {
                  amount: -50,
                  currency: "EUR"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "EUR",
                  rate: 0.92,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              },
              {
                type: "exchange-base-currency",
                description: "Payment in USD at 0.92 EUR per USD",
                effect: {
                  amount: 54.35,
                  currency: "USD"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "EUR",
                  rate: 0.92,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              }
            ]
          },
          {
            total: {
              JPY: 1000,
              USD: 6.67
            },
            sku: "DEMO-JP-RANGE",
            items: [
              {
                type: "main-product",
                description: "1 × Demo Japan top-up at 1000 JPY",
                effect: {
                  amount: 1000,
                  currency: "JPY"
                },
                metaData: {
                  quantity: 1,
                  quote: 1000
                }
              },
              {
                type: "exchange-target-currency",
                description: "Exchange out of JPY",
                effect: {
                  amount: -1000,
                  currency: "JPY"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "JPY",
                  rate: 150,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              },
              {
                type: "exchange-base-currency",
                description: "Payment in USD at 150 JPY per USD",
                effect: {
                  amount: 6.67,
                  currency: "USD"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "JPY",
                  rate: 150,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              }
            ]
          }
        ],
        paymentMethod: "wallet",
        status: "unpaid"
      },
      retailInvoice: {
        total: 61.02,
        wallet: "USD",
        records: [
          {
            total: {
              EUR: 50,
              USD: 54.35
            },
            sku: "DEMO-EU-FIXED",
            items: [
              {
                type: "main-product",
                description: "2 × Demo EU voucher at 25 EUR",
                effect: {
                  amount: 50,
                  currency: "EUR"
                },
                metaData: {
                  quantity: 2,
                  quote: 25
                }
              },
              {
                type: "exchange-target-currency",
                description: "Exchange out of EUR",
                effect: {
                  amount: -50,
                  currency: "EUR"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "EUR",
                  rate: 0.92,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              },
              {
                type: "exchange-base-currency",
                description: "Payment in USD at 0.92 EUR per USD",
                effect: {
                  amount: 54.35,
                  currency: "USD"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "EUR",
                  rate: 0.92,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              }
            ]
          },
          {
            total: {
              JPY: 1000,
              USD: 6.67
            },
            sku: "DEMO-JP-RANGE",
            items: [
              {
                type: "main-product",
                description: "1 × Demo Japan top-up at 1000 JPY",
                effect: {
                  amount: 1000,
                  currency: "JPY"
                },
                metaData: {
                  quantity: 1,
                  quote: 1000
                }
              },
              {
                type: "exchange-target-currency",
                description: "Exchange out of JPY",
                effect: {
                  amount: -1000,
                  currency: "JPY"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "JPY",
                  rate: 150,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              },
              {
                type: "exchange-base-currency",
                description: "Payment in USD at 150 JPY per USD",
                effect: {
                  amount: 6.67,
                  currency: "USD"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "JPY",
                  rate: 150,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              }
            ]
          }
        ],
        paymentMethod: "wallet",
        status: "unpaid"
      },
      expiresAt: 1795345678500,
      livemode: false
    }
  },
  confirmOrder: {
    request: {
      orderId: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e"
    },
    data: {
      id: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
      state: "confirmed"
    }
  },
  getOrder: {
    data: {
      uid: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
      state: "successful",
      products: {
        "DEMO-EU-FIXED": {
          request: {
            quote: 25,
            quantity: 2
          },
          customerDeal: {
            dealState: "none",
            fee: {
              amount: 0,
              adjustmentMode: "fixed"
            },
            discount: {
              amount: 0,
              adjustmentMode: "fixed"
            }
          },
          sku: "DEMO-EU-FIXED",
          shopItem: {
            country: "DE",
            quote: 25,
            name: "Demo EU voucher",
            region: "Europe",
            productType: "fixed",
            baseCurrency: "EUR"
          }
        },
        "DEMO-JP-RANGE": {
          request: {
            quote: 1000,
            quantity: 1
          },
          customerDeal: {
            dealState: "none",
            fee: {
              amount: 0,
              adjustmentMode: "fixed"
            },
            discount: {
              amount: 0,
              adjustmentMode: "fixed"
            }
          },
          sku: "DEMO-JP-RANGE",
          shopItem: {
            country: "JP",
            quote: 1000,
            name: "Demo Japan top-up",
            region: "Asia",
            productType: "range",
            baseCurrency: "JPY"
          }
        }
      },
      exchangeRates: [
        {
          baseCurrency: "USD",
          targetCurrency: "EUR",
          rate: 0.92,
          modifiedDate: {
            _seconds: 1767225600,
            _nanoseconds: 0
          }
        },
        {
          baseCurrency: "USD",
          targetCurrency: "JPY",
          rate: 150,
          modifiedDate: {
            _seconds: 1767225600,
            _nanoseconds: 0
          }
        }
      ],
      invoice: {
        total: 61.02,
        wallet: "USD",
        records: [
          {
            total: {
              EUR: 50,
              USD: 54.35
            },
            sku: "DEMO-EU-FIXED",
            items: [
              {
                type: "main-product",
                description: "2 × Demo EU voucher at 25 EUR",
                effect: {
                  amount: 50,
                  currency: "EUR"
                },
                metaData: {
                  quantity: 2,
                  quote: 25
                }
              },
              {
                type: "exchange-target-currency",
                description: "Exchange out of EUR",
                effect: {
                  amount: -50,
                  currency: "EUR"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "EUR",
                  rate: 0.92,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              },
              {
                type: "exchange-base-currency",
                description: "Payment in USD at 0.92 EUR per USD",
                effect: {
                  amount: 54.35,
                  currency: "USD"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "EUR",
                  rate: 0.92,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              }
            ]
          },
          {
            total: {
              JPY: 1000,
              USD: 6.67
            },
            sku: "DEMO-JP-RANGE",
            items: [
              {
                type: "main-product",
                description: "1 × Demo Japan top-up at 1000 JPY",
                effect: {
                  amount: 1000,
                  currency: "JPY"
                },
                metaData: {
                  quantity: 1,
                  quote: 1000
                }
              },
              {
                type: "exchange-target-currency",
                description: "Exchange out of JPY",
                effect: {
                  amount: -1000,
                  currency: "JPY"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "JPY",
                  rate: 150,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              },
              {
                type: "exchange-base-currency",
                description: "Payment in USD at 150 JPY per USD",
                effect: {
                  amount: 6.67,
                  currency: "USD"
                },
                metaData: {
                  baseCurrency: "USD",
                  targetCurrency: "JPY",
                  rate: 150,
                  modifiedDate: {
                    _seconds: 1767225600,
                    _nanoseconds: 0
                  }
                }
              }
            ]
          }
        ],
        paymentMethod: "wallet",
        status: "paid"
      },
      createdDate: {
        _seconds: 1795345078,
        _nanoseconds: 500000000
      },
      modifiedDate: {
        _seconds: 1795345078,
        _nanoseconds: 620000000
      },
      redeem: {
        "DEMO-EU-FIXED": {
          redeemPin: [
            "DEMO-EU-25-0001",
            "DEMO-EU-25-0002"
          ],
          currency: "EUR",
          redeemLink: "https://redeem.example.com/eu/DEMO-EU-25-0001",
          redeemLinks: [
            "https://redeem.example.com/eu/DEMO-EU-25-0001",
            "https://redeem.example.com/eu/DEMO-EU-25-0002"
          ],
          value: 25
        },
        "DEMO-JP-RANGE": {
          redeemPin: [
            "SBX-0DEA1-85569-96C12-DFF0A"
          ],
          currency: "JPY",
          redeemLink: "https://redeem.example.com/sandbox/SBX-0DEA1-85569-96C12-DFF0A",
          redeemLinks: [
            "https://redeem.example.com/sandbox/SBX-0DEA1-85569-96C12-DFF0A"
          ],
          value: 1000
        }
      },
      reference: "po-2026-0042",
      livemode: false
    }
  },
  adminFindOrder: { data: adminOrderData },
  adminGetOrder: { data: adminOrderData },
  adminListStuckOrders: {
    data: {
      orders: [
        {
          orderId: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
          clientId: "demo",
          timer: "process",
          skus: [],
          failures: 4,
          lastError: "D1_ERROR: Network connection lost.",
          firstFailedAt: 1795345078620,
          lastFailedAt: 1795345092620,
          nextAttemptAt: 1795345108620,
        },
      ],
      next: null,
    },
  },
} satisfies Record<string, RouteExample>;
