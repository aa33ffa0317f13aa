import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue 19: README.md is the newcomer's page and docs/*.md hold the rest by topic. Every relative link in them
 * (markdown links, images, `<img src>`) must point at a file of the repository, and a `#fragment` at a heading of
 * that file. The pages other helpers write in parallel are allowed to be missing on this branch; once they exist,
 * their links are checked like any other.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const WRITTEN_ELSEWHERE = new Set(
  ["security.md", "conversation.md", "confirmation-page-and-sms.md", "stores.md", "follow-up.md", "statistics.md"].map((name) =>
    path.join(ROOT, "docs", name),
  ),
);

const pages = [path.join(ROOT, "README.md"), ...readdirSync(path.join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => path.join(ROOT, "docs", name))];

/** The page's text without fenced code blocks and inline code (a `[x](y)` there is an example, not a link). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

function linksOf(file: string): string[] {
  const text = prose(readFileSync(file, "utf8"));
  const markdown = [...text.matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
  const html = [...text.matchAll(/<(?:img|a)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
  return [...markdown, ...html].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = match[1].toLowerCase().replace(/`/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").trim().replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function problemsOf(page: string, links = linksOf(page)): string[] {
  const problems: string[] = [];
  for (const link of links) {
    const [target, fragment] = link.split("#") as [string, string | undefined];
    const file = target === "" ? page : path.resolve(path.dirname(page), decodeURIComponent(target));
    const where = `${path.relative(ROOT, page)} → ${link}`;
    if (!file.startsWith(ROOT + path.sep) && file !== ROOT) {
      problems.push(`${where}: outside the repository`);
      continue;
    }
    if (!existsSync(file)) {
      if (!WRITTEN_ELSEWHERE.has(file)) problems.push(`${where}: no such file`);
      continue;
    }
    if (fragment && statSync(file).isFile() && file.endsWith(".md") && !anchorsOf(file).has(fragment)) {
      problems.push(`${where}: no heading with that anchor`);
    }
  }
  return problems;
}

describe("links in README.md and docs/*.md", () => {
  it("finds the pages and their links (the README links every docs page)", () => {
    expect(pages.length).toBeGreaterThanOrEqual(9);
    const readme = linksOf(path.join(ROOT, "README.md"));
    for (const page of pages.slice(1)) expect(readme, path.basename(page)).toContain(`docs/${path.basename(page)}`);
    for (const page of WRITTEN_ELSEWHERE) expect(readme).toContain(`docs/${path.basename(page)}`);
    expect(linksOf(path.join(ROOT, "docs", "console.md"))).toContain("console/orders-en-phone.png");
  });

  it("every relative link points at an existing file, and every #fragment at a heading there", () => {
    expect(pages.flatMap((page) => problemsOf(page))).toEqual([]);
  });

  it("the checker itself catches a missing file, a missing anchor and a link out of the repository", () => {
    const page = path.join(ROOT, "docs", "rest.md");
    const links = ["webhooks.md#webhook-endpoints", "#metas-callbacks-whatsapp-webhooks", "../README.md#testing", "security.md"];
    expect(problemsOf(page, links)).toEqual([]);
    expect(problemsOf(page, ["webhook.md", "webhooks.md#no-such-heading", "../../outside.md"])).toEqual([
      "docs/rest.md → webhook.md: no such file",
      "docs/rest.md → webhooks.md#no-such-heading: no heading with that anchor",
      "docs/rest.md → ../../outside.md: outside the repository",
    ]);
  });
});
