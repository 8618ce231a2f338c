/**
 * What an upstream supplier answers with (docs/fulfilment.md: "Upstream supplier contract"). Its own module
 * so that upstream-supplier.ts can load it with the first answer, not when the Worker starts.
 */
import * as z from "zod/mini";

export const UpstreamIssueResponse = z.object({
  codes: z
    .array(
      z.object({
        pin: z.string().check(z.minLength(1), z.maxLength(512)),
        link: z.string().check(z.url(), z.maxLength(2048)),
      }),
    )
    .check(z.minLength(1)),
});
