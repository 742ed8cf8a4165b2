// A request the service can't carry out now but may later: in cluster mode, the node can't reach the
// cluster (it must not acknowledge what it can't replicate), or the partition's owner did not answer
// while another node takes it over. The HTTP layer answers 503, and the client may retry.

export class ServiceUnavailableError extends Error {
  override readonly name = "ServiceUnavailableError";
}

/** True for a ServiceUnavailableError, also after it crossed a worker boundary (which keeps only name and message). */
export function isServiceUnavailable(error: unknown): boolean {
  return error instanceof Error && error.name === "ServiceUnavailableError";
}
