/**
 * GET /docs: an HTML page that renders /openapi.json with the Scalar bundle the Worker serves itself.
 * (That it really renders in a browser is checked by `npm run check:docs`, in headless Chromium.)
 */
import { describe, expect, it } from "vitest";
import { RENDERER_FILE } from "../../src/docs/docs-page";
import { RENDERER_VERSION } from "../../src/docs/generated/renderer.js";
import { call } from "../helpers";

describe("GET /docs", () => {
  it("answers an HTML page that loads the renderer from this Worker and points it at /openapi.json", async () => {
    const page = await call("GET", "/docs", { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = page.body as string;
    expect(html).toMatch(/^<!doctype html>/);
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1]!);
    const sources = scripts.flatMap((attributes) => [...(/ src="([^"]+)"/.exec(attributes)?.slice(1) ?? [])]);
    expect(sources).toEqual([`/docs/${RENDERER_FILE}`]);
    expect(html).toContain('id="api-reference" data-url="/openapi.json"');
    const configuration = JSON.parse(
      /data-configuration="([^"]*)"/.exec(html)![1]!.replaceAll("&quot;", '"').replaceAll("&amp;", "&"),
    );
    expect(configuration).toMatchObject({
      url: "/openapi.json",
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
    });
    // Nothing from elsewhere: no absolute URL in the page, and the browser may reach this origin only.
    expect(html).not.toMatch(/https?:\/\//);
    expect([...html.matchAll(/ (?:src|href)="([^"]*)"/g)].map((match) => match[1])).toEqual([
      "data:,",
      "/openapi.json",
      `/docs/${RENDERER_FILE}`,
    ]);
    const policy = page.headers.get("content-security-policy")!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("font-src 'self' data:");
  });

  it("serves the renderer it loads: Scalar's standalone bundle, cached for good under its hash", async () => {
    expect(RENDERER_FILE).toMatch(/^scalar-[0-9a-f]{16}\.js$/);
    const script = await call("GET", `/docs/${RENDERER_FILE}`, { key: null });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const code = script.body as string;
    expect(code.length).toBeGreaterThan(1_000_000);
    expect(code).toContain(`@scalar/api-reference@${RENDERER_VERSION}`);
    expect(code).toContain("createApiReference");
  });

  it("answers 404 for any other file under /docs and 405 for another method", async () => {
    const other = await call("GET", "/docs/scalar-0000000000000000.js", { key: null });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: "route_not_found" });
    const post = await call("POST", "/docs", { key: null, body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });

  it("is not part of the API document", async () => {
    const document = await call("GET", "/openapi.json", { key: null });
    expect(document.status).toBe(200);
    const paths = Object.keys((document.body as { paths: Record<string, unknown> }).paths);
    expect(paths).toContain("/order/create");
    expect(paths.filter((path) => path.startsWith("/docs"))).toEqual([]);
  });
});
