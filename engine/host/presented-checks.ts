// PresentedChecks: the API JSON of recently listed checks, so that listing a project re-renders only the
// checks that changed since the last list. A Check is immutable (every change makes a new object), so
// the object itself keys its JSON; what else the JSON depends on (the status at the time of the read,
// and the view) is checked on every hit. Measured: presenting and serialising 1,000 checks took 6-14 ms
// of the shard's time per list.
import type { Check } from "../model.ts";
import { statusAt } from "../status.ts";
import type { CheckView } from "../../http/present.ts";
import { presentCheck } from "../../http/present.ts";

const MAX_ENTRIES = 5_000; // about 4-5 MB of JSON per shard at most (a few lists of 1,000); the oldest go first

export class PresentedChecks {
  readonly #json = new Map<Check, { readonly key: string; readonly json: string }>();

  /** Returns the JSON array of `checks` as presentCheck shows them in `view`, identical to JSON.stringify of it. */
  listJson(checks: readonly Check[], view: CheckView): string {
    const viewKey = `${view.siteRoot}\n${String(view.readonly)}\n${view.emailDomain ?? ""}`;
    const parts = checks.map((check) => {
      const key = `${statusAt(check, view.at)}\n${viewKey}`;
      const cached = this.#json.get(check);
      if (cached !== undefined && cached.key === key) return cached.json;
      const json = JSON.stringify(presentCheck(check, view));
      this.#json.delete(check); // re-inserted last: the Map's order is the eviction order
      this.#json.set(check, { key, json });
      if (this.#json.size > MAX_ENTRIES) this.#json.delete(this.#json.keys().next().value as Check);
      return json;
    });
    return `[${parts.join(",")}]`;
  }
}
