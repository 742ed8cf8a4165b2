// The one msgpack encoder of the cluster's wire formats (partition records and snapshots, history
// messages, notification entries, requests to an owner): every message describes itself (no structures
// shared between messages, so any node of any age reads it), and what it decodes into is copied out of
// the message's buffer (a decoded ping body must not point into the client's buffer).
import { Packr } from "msgpackr";

export const wirePackr = new Packr({ copyBuffers: true });

/**
 * The same format, decoding binaries as views into the message: only for an envelope whose binaries (its
 * sections, its records) are decoded by wirePackr before the decoding call returns. A copy costs a buffer
 * of its own each, several times the decoding of a small section.
 */
export const wireEnvelopePackr = new Packr();
