// GitHub: opens an issue in the channel's repository when a check goes down (reference
// hc/integrations/github), with a token given per channel (the reference's GitHub App is one
// installation per site); the API is GITHUB_API_URL. Ups and reminders open nothing.
import { invalid, ok } from "../../engine/outcome.ts";
import type { ServiceKindModule, ServiceMessage } from "./kind.ts";
import { inlineReason, isObject, jsonRequest, stringField } from "./kind.ts";

function body(m: ServiceMessage): string {
  const lines = [`The check [${m.name}](${m.link}) is **DOWN**${inlineReason(m)}.`, ""];
  lines.push(...m.details.map(([label, value]) => `**${label}:** ${label === "Schedule" ? `\`${value}\`` : value}`));
  if (m.body !== null && !m.body.includes("```")) lines.push("**Last Ping Body:**", "```", m.body, "```");
  return lines.join("\n");
}

export const github: ServiceKindModule = {
  help: '{"repo": "owner/name", "token": "a token that may create issues", "labels"?: "bug,monitoring"}: an issue per down',
  form: [
    { name: "repo", label: "Repository", input: "text", required: true, hint: "owner/name", target: true },
    { name: "token", label: "Token", input: "secret", required: true },
    { name: "labels", label: "Labels", input: "text", required: false, hint: "comma-separated" },
  ],
  secretFields: ["token"],
  parse(value) {
    if (!isObject(value)) return invalid("value", "must be an object with repo and token");
    if (typeof value.repo !== "string" || !/^[\w.-]+\/[\w.-]+$/.test(value.repo)) return invalid("value.repo", 'must be "owner/name"');
    const token = stringField(value, "token", 255);
    if (!token.ok) return token;
    const labels = value.labels ?? "";
    if (typeof labels !== "string" || labels.length > 500) return invalid("value.labels", "must be a comma-separated string");
    return ok({
      repo: value.repo,
      token: token.value,
      labels: labels
        .split(",")
        .map((l) => l.trim())
        .filter((l) => l !== "")
        .join(","),
    });
  },
  render(fields, m, settings) {
    if (m.direction !== "down" || m.reminder) return [];
    const labels = String(fields.labels)
      .split(",")
      .filter((l) => l !== "");
    return [
      jsonRequest(
        `${settings.githubApiUrl}/repos/${String(fields.repo)}/issues`,
        { title: m.title, body: body(m), labels },
        {
          headers: {
            Authorization: `Bearer ${String(fields.token)}`,
            Accept: "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
          },
          operatorEndpoint: true,
        },
      ),
    ];
  },
};
