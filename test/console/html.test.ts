/**
 * The console's renderer escapes every interpolation, attributes included, unless the value is markup made
 * by `html` or `raw`; it refuses an unquoted attribute and a URL attribute pointing off this origin.
 */
import { describe, expect, it } from "vitest";
import { escapeHtml, html, path, raw, withQuery } from "../../src/console/html";
import { layout } from "../../src/console/layout";
import { setNavigation } from "../../src/console/navigation";

const PROBE = "<img src=x onerror=alert(1)>";
const ESCAPED = "&lt;img src=x onerror=alert(1)&gt;";

describe("html", () => {
  it("escapes text, and quotes of every kind so a quoted attribute cannot be left", () => {
    expect(html`<p>${PROBE}</p>`.toString()).toBe(`<p>${ESCAPED}</p>`);
    const attribute = html`<input value="${'" onfocus="alert(1)'}" title='${"' onmouseover='x"}' />`.toString();
    expect(attribute).toBe(`<input value="&quot; onfocus=&quot;alert(1)" title='&#39; onmouseover=&#39;x' />`);
    expect(escapeHtml("a & b < c > d ` e")).toBe("a &amp; b &lt; c &gt; d &#96; e");
  });

  it("keeps markup made by html or raw, renders arrays item by item and nothing for null, undefined, false", () => {
    const inner = html`<b>${PROBE}</b>`;
    expect(html`<div>${inner}</div>`.toString()).toBe(`<div><b>${ESCAPED}</b></div>`);
    expect(html`<ul>${["<a>", html`<li>x</li>`]}</ul>`.toString()).toBe("<ul>&lt;a&gt;<li>x</li></ul>");
    expect(html`${raw("<hr />")}${null}${undefined}${false}${0}`.toString()).toBe("<hr />0");
    // A string that looks like markup, or an object whose toString does, is still text.
    expect(html`${{ toString: () => PROBE }}`.toString()).toBe(ESCAPED);
  });

  it("refuses an interpolation as an unquoted attribute value", () => {
    expect(() => html`<input value=${"x onfocus=alert(1)"} />`).toThrow(/unquoted attribute/);
    expect(() => html`<a href = ${"/x"}>`).toThrow(/unquoted attribute/);
  });

  it("lets a URL attribute point only at this origin", () => {
    expect(html`<a href="${"/console/orders"}">`.toString()).toBe('<a href="/console/orders">');
    expect(html`<a href="${"?after=3"}">`.toString()).toBe('<a href="?after=3">');
    for (const url of [
      "javascript:alert(1)",
      "//evil.example/x",
      "https://evil.example",
      " /x",
      "data:text/html,x",
      // A browser reads each of these as //evil.example: a backslash is a slash, a tab or newline is dropped.
      "/\\evil.example/x",
      "/\t/evil.example/x",
      "/\n\\evil.example",
    ]) {
      expect(() => html`<a href="${url}">`).toThrow(/this origin/);
      expect(() => html`<form action='${url}'>`).toThrow(/this origin/);
      expect(() => html`<img src="${url}">`).toThrow(/this origin/);
    }
  });

  it("builds paths whose segments a client chose without leaving the path", () => {
    expect(path("/console/clients", "a/../b?c#d")).toBe("/console/clients/a%2F..%2Fb%3Fc%23d");
    expect(withQuery("/console/orders", { orderId: "ord_1 2", clientId: undefined })).toBe(
      "/console/orders?orderId=ord_1+2",
    );
    expect(withQuery("/x", {})).toBe("/x");
  });
});

describe("layout", () => {
  const operator = { operatorId: "op_1", name: PROBE, role: "operator" as const, sessionId: "s" };

  it("has a skip link to the main landmark, a labelled navigation, the title and the operator escaped", () => {
    setNavigation([
      { path: "/console", label: "Home", minRole: "viewer" },
      { path: "/console/clients", label: "Clients", minRole: "viewer" },
      { path: "/console/operators", label: "Operators", minRole: "admin" },
    ]);
    const page = layout({
      title: PROBE,
      operator,
      current: "/console/clients",
      body: html`<p>${PROBE}</p>`,
    }).toString();
    expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(page).toContain('<a class="skip" href="#main">Skip to content</a>');
    expect(page).toContain('<main id="main" tabindex="-1">');
    expect(page).toContain('<nav aria-label="Console">');
    expect(page).toContain('<a href="/console/clients" aria-current="page">Clients</a>');
    // An operator's role sees only the pages it may open.
    expect(page).not.toContain("/console/operators");
    expect(page).not.toContain(PROBE);
    expect(page.split(ESCAPED).length - 1).toBe(4);
    // No inline script or style: only files of this origin.
    expect(page).not.toMatch(/<style|style=|<script>|<script(?![^>]*\ssrc="\/console\/)/);
    expect(page).toContain('<script src="/console/htmx-2.0.11.min.js" defer></script>');
    expect(page).toContain('action="/console/sign-out"');
  });

  it("draws the sign-in page without navigation", () => {
    const page = layout({ title: "Sign in", operator: null, body: html`<p>x</p>` }).toString();
    expect(page).not.toContain("<nav");
    expect(page).not.toContain("sign-out");
  });
});
