// The documentation as the docs tests read it: which files, their links and pictures (outside code), the
// anchors GitHub gives their headings, and git's list of tracked files.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

/** README.md, docs/*.md, ARCHITECTURE.md and CHANGELOG.md when present, as repository paths. */
export function docFiles(): string[] {
  const pages = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...pages, "ARCHITECTURE.md", "CHANGELOG.md"].filter((path) => existsSync(join(ROOT, path)));
}

/** The text without fenced or indented code blocks and inline code, lines kept (so line numbers hold). */
export function withoutCode(text: string): string {
  const out: string[] = [];
  let fenced = false,
    previousBlank = true,
    indented = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      out.push("");
      continue;
    }
    if (fenced) {
      out.push("");
      continue;
    }
    const blank = line.trim() === "";
    indented = /^( {4}|\t)/.test(line) && (indented || previousBlank);
    previousBlank = blank;
    out.push(indented ? "" : line.replace(/(`+)[^`]*?\1/g, ""));
  }
  return out.join("\n");
}

export type Link = { file: string; line: number; target: string; picture: boolean };

/** Every link and picture of a file: Markdown `[text](target)`, `![alt](target)`, and HTML src= / href=. */
export function links(file: string): Link[] {
  const text = withoutCode(readFileSync(join(ROOT, file), "utf8"));
  return text.split("\n").flatMap((line, index) =>
    [
      ...[...line.matchAll(/(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({
        target: m[2],
        picture: m[1] === "!",
      })),
      ...[...line.matchAll(/<(img|a)\s[^>]*?\b(src|href)="([^"]+)"/g)].map((m) => ({ target: m[3], picture: m[1] === "img" })),
    ].map((found) => ({ file, line: index + 1, ...found })),
  );
}

/** GitHub's anchor of a heading: its text as shown, lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  const shown = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1");
  return shown
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a file offers: its headings' (a repeated one gets -1, -2, ...) and explicit id= / name=. */
export function anchors(file: string): Set<string> {
  const text = withoutCode(readFileSync(join(ROOT, file), "utf8"));
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const m of text.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = anchorOf(m[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const m of text.matchAll(/<a\s[^>]*?\b(?:id|name)="([^"]+)"/g)) found.add(m[1]);
  return found;
}

/** The files git tracks, or null outside a git checkout (then the files on disk are all there is). */
export function trackedFiles(): Set<string> | null {
  try {
    return new Set(execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).split("\n"));
  } catch {
    return null;
  }
}
