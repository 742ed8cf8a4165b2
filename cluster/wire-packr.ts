// The one msgpack encoder of the cluster's wire formats: every message describes itself (any node of any age
// reads it), and what it decodes into is copied out of the message's buffer.
import { Packr } from "msgpackr";

export const wirePackr = new Packr({ copyBuffers: true });

/**
 * The same format, decoding binaries as views into the message: only for an envelope whose binaries (its
 * sections, its records) are decoded by wirePackr before the decoding call returns. A copy costs a buffer
 * of its own each, several times the decoding of a small section.
 */
export const wireEnvelopePackr = new Packr();
