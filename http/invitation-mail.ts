// The invitation email: the one-use link that sets the new user's password, sent to the invited address
// through SMTP_URL when it is set (the inviter is shown the link either way, by the page or the API answer).
import { log } from "../host/log.ts";
import type { AppDeps } from "./deps.ts";

/** What became of the email: sent, not sent (the SMTP server refused or was unreachable), or no SMTP_URL. */
export type InvitationMail = "sent" | "failed" | "off";

/** Sends the invitation at `link` to `to`; `role` names what the link gives ("member of the project Ops"), if anything. */
export async function mailInvitation(
  send: AppDeps["sendUserMail"],
  invitation: { to: string; link: string; role: string | null },
): Promise<InvitationMail> {
  const { to, link, role } = invitation;
  if (send === undefined) return "off";
  const what = role === null ? "an account on hcd" : `an account on hcd, ${role}`;
  const text = `You are invited to ${what}.\n\nOpen this link to choose your password (valid for 7 days, once):\n\n${link}\n`;
  try {
    if (await send(to, "Your invitation to hcd", text)) return "sent";
  } catch (error) {
    log.warn({ err: error }, "invitation email failed");
    return "failed";
  }
  log.warn("invitation email not sent");
  return "failed";
}
