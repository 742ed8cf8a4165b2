// The one msgpack encoder of the cluster's wire formats (partition records and snapshots, history
// messages, notification entries, requests to an owner): every message describes itself (no structures
// shared between messages, so any node of any age reads it), and what it decodes into is copied out of
// the message's buffer (a decoded ping body must not point into the client's buffer).
import { Packr } from "msgpackr";

export const wirePackr = new Packr({ copyBuffers: true });
