// How to ping a check from the usual places (crontab, Bash, Python, Node.js, PowerShell, email), each
// with the check's own ping URL, and the check's badge with its URL: the "How to ping" section's extras.
import type { Check } from "../../engine/model.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

/** The snippets for `pingUrl`, in the order shown; email only when the check has an address (inbound SMTP on). */
export function usageSnippets(pingUrl: string, email: string | null): readonly { readonly name: string; readonly code: string }[] {
  const snippets = [
    {
      name: "Crontab",
      code: `# m h dom mon dow command\n8 6 * * * /home/user/backup.sh && curl -fsS -m 10 --retry 5 -o /dev/null ${pingUrl}`,
    },
    {
      name: "Bash",
      code: `# using curl (10 second timeout, retry up to 5 times):\ncurl -m 10 --retry 5 ${pingUrl}\n\n# using wget (10 second timeout, retry up to 5 times):\nwget ${pingUrl} -T 10 -t 5 -O /dev/null`,
    },
    {
      name: "Python",
      code: `import socket\nimport urllib.request\n\ntry:\n    urllib.request.urlopen("${pingUrl}", timeout=10)\nexcept socket.error as e:\n    # Log ping failure here...\n    print("Ping failed: %s" % e)`,
    },
    {
      name: "Node.js",
      code: `// Node 18 or later: fetch is built in\nfetch("${pingUrl}", { signal: AbortSignal.timeout(10_000) })\n  .catch((err) => console.error("Ping failed: " + err));`,
    },
    { name: "PowerShell", code: `# a ping with a 10 second timeout:\nInvoke-RestMethod -Uri ${pingUrl} -TimeoutSec 10` },
  ];
  if (email !== null)
    snippets.push({
      name: "Email",
      code: `As an alternative to HTTP requests, you can also report "liveness"\nby sending email messages to:\n\n${email}`,
    });
  return snippets;
}

/** One collapsed block per snippet: no script needed (the page's CSP allows none inline). */
export function usageExamplesHtml(pingUrl: string, email: string | null): Html {
  return html`<div class="usage-examples"><h3>Usage examples</h3>
${usageSnippets(pingUrl, email).map(
  ({ name, code }) => html`<details class="usage"><summary>${name}</summary><pre><code>${code}</code></pre>
<button type="button" data-copy="${code}">Copy ${name} example</button></details>
`,
)}</div>`;
}

/**
 * The check's own badge (the API's badge_url: /b/2/<badge key>.svg, up or down), shown and its URL to copy.
 * The image follows the page's live refresh: its element is swapped with the status, and its address
 * carries the status word (`word`), which the badge route ignores, so that a changed status is a new
 * address the browser loads rather than the image it holds already.
 */
export function checkBadgeHtml(check: Check, siteRoot: string, word: string): Html {
  const path = `/b/2/${check.badgeKey}.svg`;
  const url = `${siteRoot}${path}`;
  return html`<div class="check-badge"><h3>Badge</h3>
<p id="live-badge" data-live><img src="${path}?status=${word}" alt="status badge of this check"></p>
<div class="copy"><code>${url}</code><button type="button" data-copy="${url}">Copy badge URL</button></div></div>`;
}
