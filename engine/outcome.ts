// Expected failures are plain data: they cross the worker boundary intact (a thrown error would not).

export type Failure =
  | { readonly code: "unauthorized" }
  | { readonly code: "forbidden" }
  | { readonly code: "not_found"; readonly what?: string }
  | { readonly code: "not_paused" }
  | { readonly code: "not_down" }
  | { readonly code: "check_limit" }
  | { readonly code: "ambiguous_slug" }
  | { readonly code: "invalid"; readonly field: string; readonly reason: string };

export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: Failure };

/** Returns a successful outcome holding `value`. */
export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

/** Returns a failed outcome. */
export const fail = <T = never>(failure: Failure): Outcome<T> => ({ ok: false, failure });

/** Returns a failed outcome for an invalid field. */
export const invalid = <T = never>(field: string, reason: string): Outcome<T> => fail({ code: "invalid", field, reason });
