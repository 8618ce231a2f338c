import { describe, it } from "vitest";
import { DEMO_KEY, seedDemo, topUp } from "../helpers";
import { expectLivemode } from "../livemode-check";

describe("livemode in the sandbox", () => {
  it("is false on the create and retrieve answers and on the order's events", async () => {
    await seedDemo();
    await topUp("demo", "USD", "1000");
    await expectLivemode(DEMO_KEY, false);
  });
});
