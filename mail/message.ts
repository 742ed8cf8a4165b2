// What the email keyword rules search (fact sheet notify §8, reference smtpd.py `_to_text`).
import { simpleParser } from "mailparser";
import { htmlToText } from "./html-text.ts";

/** The decoded subject and the body text keywords are searched in. */
export type MailContent = { readonly subject: string; readonly text: string };

/**
 * Returns the decoded subject and body text of a raw message: the plain part and the HTML part run
 * through htmlToText, joined by "\n" as the reference joins them. Rejects when the message can't be parsed.
 */
export async function readMail(raw: Uint8Array): Promise<MailContent> {
  const parsed = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), {
    skipHtmlToText: true, // HTML is converted below, the reference's way (its text feeds case-sensitive keywords)
    skipTextToHtml: true,
    skipTextLinks: true,
    skipImageLinks: true,
  });
  const chunks: string[] = [];
  if (parsed.text) chunks.push(parsed.text);
  if (typeof parsed.html === "string") {
    const htmlText = htmlToText(parsed.html);
    if (htmlText !== "") chunks.push(htmlText);
  }
  return { subject: parsed.subject ?? "", text: chunks.join("\n") };
}
