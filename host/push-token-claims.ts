// A push token is unique over every project, which no shard alone can judge: the pool holds a token from
// the check until the create or update that gives it is answered, and refuses it to any other check meanwhile.
import type { CheckSpec } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid } from "../engine/outcome.ts";
import type { DirectoryLookups } from "./directory-lookups.ts";

export class PushTokenClaims {
  readonly #directory: DirectoryLookups;
  readonly #held = new Set<string>(); // tokens of creates and updates on their way

  constructor(directory: DirectoryLookups) {
    this.#directory = directory;
  }

  /**
   * Runs a create (`uuid` null) or an update whose spec may give a push token, holding the token until it
   * is answered (two requests for one token at once: the second is refused); invalid when another check has it.
   */
  async run<T>(spec: CheckSpec, uuid: string | null, change: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    const token = spec.pushToken;
    if (token === undefined || token === null) return change();
    await this.#directory.catchUp(); // cluster mode: a token another node just gave
    const holder = this.#directory.pushTokenHolder(token);
    if ((holder !== undefined && holder !== uuid) || this.#held.has(token)) return invalid("push_token", "is taken by another check");
    this.#held.add(token);
    try {
      return await change();
    } finally {
      this.#held.delete(token);
    }
  }
}
