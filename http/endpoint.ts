// One API path and its methods: OPTIONS preflight, 405, CORS headers, and every error rendered as {"error"}.
import type { H3, H3Event } from "h3";
import { HTTPResponse } from "h3";
import type { ErrorReporter } from "./errors.ts";
import { httpError, renderError } from "./errors.ts";
import { jsonResponse } from "./response.ts";

export const VERBS = ["GET", "POST", "PUT", "DELETE"] as const;
export type Verb = (typeof VERBS)[number];

/** A handler's answer: JSON, or raw bytes with a content type. */
export type Reply =
  | { readonly status: number; readonly json: unknown }
  | { readonly status: number; readonly body: Uint8Array | string; readonly contentType: string };

export type Handler = (event: H3Event) => Promise<Reply>;

export type EndpointOptions = {
  readonly report: ErrorReporter;
  /** CORS on every answer and an unauthenticated OPTIONS preflight (research §15); admin paths have none. */
  readonly cors: boolean;
  /** Path parameters this route accepts; others are 404, as the reference's URL patterns match nothing. */
  readonly accepts?: (params: Record<string, string>) => boolean;
};

/** Registers `path` (with or without a trailing slash) answering `handlers` by method; anything else is 405. */
export function endpoint(app: H3, path: string, handlers: Partial<Record<Verb, Handler>>, options: EndpointOptions): void {
  const methods = VERBS.filter((verb) => handlers[verb] !== undefined);
  const headers: Record<string, string> = options.cors
    ? {
        "access-control-allow-origin": "*",
        "access-control-allow-headers": "X-Api-Key, Content-Type",
        "access-control-allow-methods": [...methods, "OPTIONS"].join(", "),
        "access-control-max-age": "600",
      }
    : {};
  app.all(path, async (event) => {
    try {
      if (options.accepts && !options.accepts(event.context.params ?? {})) throw httpError(404, "not found");
      const method = event.req.method;
      if (method === "OPTIONS" && options.cors) return new HTTPResponse(null, { status: 204, headers });
      const handler = VERBS.find((verb) => verb === method && handlers[verb] !== undefined);
      if (handler === undefined)
        throw httpError(405, "method not allowed", { allow: [...methods, ...(options.cors ? ["OPTIONS"] : [])].join(", ") });
      return toResponse(await (handlers[handler] as Handler)(event), headers);
    } catch (error) {
      return renderError(error, { report: options.report, headers });
    }
  });
}

/** Returns a JSON reply with this status. */
export const json = (json: unknown, status = 200): Reply => ({ status, json });

function toResponse(reply: Reply, headers: Record<string, string>): HTTPResponse {
  if (reply.status === 204) return new HTTPResponse(null, { status: 204, headers }); // no body, whatever the reply holds
  if ("json" in reply) return jsonResponse(reply.json, reply.status, headers);
  return new HTTPResponse(reply.body as BodyInit, { status: reply.status, headers: { ...headers, "content-type": reply.contentType } });
}
