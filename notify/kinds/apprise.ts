// Apprise: the long tail of services through Debian's `apprise` command, only with APPRISE_ENABLED=true
// (reference hc/integrations/apprise, which uses the Python library). The channel keeps one Apprise URL
// (tgram://..., mailto://..., json://...); the command runs without a shell and within the request deadline.
import { invalid, ok } from "../../engine/outcome.ts";
import type { ServiceKindModule, ServiceMessage } from "./kind.ts";
import { isObject } from "./kind.ts";

function body(m: ServiceMessage): string {
  const lines = [m.statusLine ?? "", ...m.details.map(([label, value]) => `${label}: ${value}`), m.link];
  return lines.filter((line) => line !== "").join("\n");
}

export const apprise: ServiceKindModule = {
  help: '{"url": "tgram://bottoken/ChatID"}: one Apprise URL (only with APPRISE_ENABLED=true)',
  form: [{ name: "url", label: "Apprise URL", input: "secret", required: true }],
  secretFields: ["url"],
  operatorOnly: true,
  enabled: (settings) => (settings.appriseEnabled ? null : "apprise notifications are off on this server (APPRISE_ENABLED)"),
  parse(value) {
    const url = isObject(value) ? value.url : value;
    if (typeof url !== "string" || !/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(url) || url.length > 2048) {
      return invalid(isObject(value) ? "value.url" : "value", "must be an Apprise URL (scheme://...)");
    }
    return ok({ url });
  },
  render(fields, m, settings) {
    if (!settings.appriseEnabled) throw new Error("APPRISE_ENABLED is not true on this server");
    const type = m.direction === "up" ? "success" : "failure";
    // "--" ends the options: the URL is never read as one
    return [
      {
        kind: "command",
        argv: ["apprise", "--title", m.title, "--body", body(m), "--notification-type", type, "--", String(fields.url)],
        env: {},
      },
    ];
  },
};
