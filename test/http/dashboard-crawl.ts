// Crawls the dashboard as one signed-in session sees it: from "/" along every same-site link of its pages,
// collecting each `<form method="post">` with the fields a browser would send (parsed with htmlparser2,
// the HTML parser hcd already uses), for tests that post every form there is.
import { Parser } from "htmlparser2";

/** A form as found on a page: where it posts, its fields in order, and the page it was on. */
export type FoundForm = { readonly action: string; readonly fields: readonly [string, string][]; readonly page: string };

/** Dashboard pages only: not the ping, API, badge, public status page or static URLs a page may also link to. */
const DASHBOARD_PATH = /^\/($|projects(\/|$)|checks\/|account$)/;

/** Returns the forms posting with method="post" and the links of one HTML page, resolved against `pageUrl`. */
export function formsAndLinks(html: string, pageUrl: string): { forms: FoundForm[]; links: string[] } {
  const forms: FoundForm[] = [];
  const links: string[] = [];
  let form: { action: string; fields: [string, string][]; submitter: [string, string] | null } | null = null;
  let select: { name: string; first: string | null; selected: string | null } | null = null;
  let option: { value: string | null; text: string; selected: boolean } | null = null;
  let textarea: { name: string; text: string } | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === "a" && attrs.href !== undefined) links.push(new URL(attrs.href, pageUrl).href);
        if (name === "form") {
          form =
            (attrs.method ?? "get").toLowerCase() === "post"
              ? { action: new URL(attrs.action ?? "", pageUrl).href, fields: [], submitter: null }
              : null;
          return;
        }
        if (form === null || attrs.disabled !== undefined) return;
        const type = (attrs.type ?? "").toLowerCase();
        if (name === "input" && attrs.name !== undefined) {
          if (type === "submit" || type === "image" || type === "button" || type === "reset" || type === "file") return;
          if ((type === "checkbox" || type === "radio") && attrs.checked === undefined) return;
          form.fields.push([attrs.name, attrs.value ?? (type === "checkbox" || type === "radio" ? "on" : "")]);
        } else if (name === "button" && attrs.name !== undefined && (type === "" || type === "submit") && form.submitter === null) {
          form.submitter = [attrs.name, attrs.value ?? ""]; // the first submit button is the one pressed
        } else if (name === "select" && attrs.name !== undefined) {
          select = { name: attrs.name, first: null, selected: null };
        } else if (name === "option" && select !== null) {
          option = { value: attrs.value ?? null, text: "", selected: attrs.selected !== undefined };
        } else if (name === "textarea" && attrs.name !== undefined) {
          textarea = { name: attrs.name, text: "" };
        }
      },
      ontext(text) {
        if (option !== null) option.text += text;
        if (textarea !== null) textarea.text += text;
      },
      onclosetag(name) {
        if (name === "option" && option !== null && select !== null) {
          const value = option.value ?? option.text.trim();
          select.first ??= value;
          if (option.selected) select.selected = value;
          option = null;
        } else if (name === "select" && select !== null) {
          const value = select.selected ?? select.first;
          if (form !== null && value !== null) form.fields.push([select.name, value]);
          select = null;
        } else if (name === "textarea" && textarea !== null) {
          form?.fields.push([textarea.name, textarea.text.replace(/^\n/, "")]);
          textarea = null;
        } else if (name === "form" && form !== null) {
          forms.push({
            action: form.action,
            fields: form.submitter === null ? form.fields : [...form.fields, form.submitter],
            page: pageUrl,
          });
          form = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return { forms, links };
}

/**
 * Visits every dashboard page reachable from "/" with this session cookie (each path once, queries
 * dropped; at most `maxPages`), and returns the pages seen and every post form on them.
 */
export async function crawlForms(siteUrl: string, cookie: string, maxPages = 300): Promise<{ pages: string[]; forms: FoundForm[] }> {
  const origin = new URL(siteUrl).origin;
  const queue = [`${origin}/`];
  const seen = new Set(queue);
  const pages: string[] = [];
  const forms: FoundForm[] = [];
  while (queue.length > 0 && pages.length < maxPages) {
    const url = queue.shift() as string;
    const response = await fetch(url, { headers: { cookie }, redirect: "manual" });
    const text = await response.text();
    const follow = (link: string) => {
      const target = new URL(link, url);
      if (target.origin !== origin || !DASHBOARD_PATH.test(target.pathname) || target.pathname.endsWith("/rows")) return;
      const next = origin + target.pathname;
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    };
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location !== null) follow(location); // an API key's "/" leads to its project
    if (response.status !== 200 || !(response.headers.get("content-type") ?? "").startsWith("text/html")) continue;
    pages.push(url);
    const found = formsAndLinks(text, url);
    forms.push(...found.forms);
    for (const link of found.links) follow(link);
  }
  return { pages, forms };
}
