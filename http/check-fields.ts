// A check's settings by the Management API's field names, one home for the places that list them: a create
// or update (the fields that refuse null), a check imported whole (PUT .../checks/<uuid>), and what
// `hcd import healthchecks --from` reads of a source's check.

/** The settings a check brought over from another instance keeps, by the API's field names (its channels apart). */
export const IMPORTED_SETTINGS = [
  "name",
  "slug",
  "tags",
  "desc",
  "timeout",
  "grace",
  "schedule",
  "tz",
  "manual_resume",
  "methods",
  "start_kw",
  "success_kw",
  "failure_kw",
  "filter_subject",
  "filter_body",
  "filter_http_body",
  "filter_default_fail",
  "failure_threshold",
  "reminder_interval",
  "max_duration",
  "min_duration",
  "alert_on_overlap",
  "max_runs_per_period",
] as const;

/**
 * The fields of a create or update that refuse null (the reference's check_nulls): the imported settings
 * and the rest a body may give. Not muted_until and push_token (null is their "none"), nor escalation (null
 * is "the project's policy").
 */
export const NON_NULL_FIELDS = [...IMPORTED_SETTINGS, "channels", "unique", "subject", "subject_fail", "depends_on"] as const;
