// The HTTP application: every route and the error renderer, built from its dependencies (deps.ts; no
// module-level state).
import type { AppDeps } from "./deps.ts";
import { H3 } from "h3";
import type { H3Event, HTTPError } from "h3";
import type { Clock } from "../host/clock.ts";
import { systemClock } from "../host/clock.ts";
import { isStoreUnavailable } from "../host/write-failures.ts";
import type { ErrorReporter } from "./errors.ts";
import { httpError, renderError, renderTextError } from "./errors.ts";
import { adminRoutes } from "./routes/admin.ts";
import { userRoutes } from "./routes/users.ts";
import { Accounts } from "../host/accounts.ts";
import { adminStatusPageRoutes } from "./routes/admin-status-pages.ts";
import { adminCheckRoutes } from "./routes/admin-checks.ts";
import { adminProjectSettingsRoutes } from "./routes/admin-project-settings.ts";
import { adminImportRoutes } from "./routes/admin-import.ts";
import { adminEscalationRoutes } from "./routes/admin-escalation.ts";
import { statusPageRoutes } from "./status/public-routes.ts";
import { auditRoutes } from "./routes/audit.ts";
import { badgeRoutes } from "./routes/badges.ts";
import { dashboardRoutes } from "./dashboard/routes.ts";
import { isDashboardPath, notFoundPage } from "./dashboard/not-found.ts";
import { checkRoutes } from "./routes/checks.ts";
import { pingRoutes } from "./routes/pings.ts";
import { kumaPushRoutes } from "./routes/kuma-push.ts";
import { alertmanagerRoutes } from "./routes/alertmanager.ts";
import { projectMetricsRoutes } from "./routes/project-metrics.ts";
import type { MetricsSource } from "./routes/metrics.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { log } from "../host/log.ts";

export type AppOptions = {
  /** Receives every unexpected error (default: the log); tests fail on any. */
  readonly report?: ErrorReporter;
  /** The clock of the API rate limit's minute windows (default: the real clock, whatever CLOCK says). */
  readonly rateClock?: Clock;
  /** The clock of the dashboard's sessions and sign-in windows (default: the real clock, whatever CLOCK says). */
  readonly sessionClock?: Clock;
  /** hcd's own metrics, served at /metrics (absent: no such route). */
  readonly metrics?: MetricsSource;
};

/** Returns the application serving the management API, the admin API, pings and badges. */
export function createApp(given: AppDeps, options: AppOptions = {}): H3 {
  const deps = { ...given, accounts: given.accounts ?? Accounts.open(null) }; // users in memory unless the process keeps them
  const reportAll = options.report ?? ((error: unknown) => log.error({ err: error }, "unexpected error"));
  // a store that refuses writes is logged once per episode by its shard, not once per request
  const report = (error: unknown) => {
    if (!isStoreUnavailable(error)) reportAll(error);
  };
  const app = new H3({
    silent: true, // unexpected errors go to `report`, once
    onError: (error: HTTPError, event: H3Event) => {
      const notFound = error.status === 404 && error.message.startsWith("Cannot find any route");
      if (notFound && isDashboardPath(event.url.pathname)) return notFoundPage(); // a person's typo: the dashboard's page
      const shown = notFound ? httpError(404, "not found") : error;
      return isJsonPath(event.url.pathname) ? renderError(shown, { report }) : renderTextError(shown, { report });
    },
  });
  checkRoutes(app, deps, { report, rateClock: options.rateClock ?? systemClock });
  adminRoutes(app, deps, { report });
  userRoutes(app, deps, { report });
  adminStatusPageRoutes(app, deps, { report });
  adminCheckRoutes(app, deps, { report });
  adminProjectSettingsRoutes(app, deps, { report });
  adminImportRoutes(app, deps, { report });
  adminEscalationRoutes(app, deps, { report });
  statusPageRoutes(app, deps, { report }); // public: /status/<slug>
  auditRoutes(app, deps, { report });
  pingRoutes(app, deps);
  kumaPushRoutes(app, deps); // Uptime Kuma's push URLs: /api/push/<token>
  alertmanagerRoutes(app, deps, { report }); // pings from Prometheus Alertmanager's webhook
  badgeRoutes(app, deps);
  dashboardRoutes(app, deps, { report, sessionClock: options.sessionClock }); // the web dashboard at SITE_ROOT/
  projectMetricsRoutes(app, deps);
  if (options.metrics !== undefined) metricsRoutes(app, deps, options.metrics);
  return app;
}

/** Returns true for the JSON APIs (/api/..., /admin/...), whose every error is {"error": "..."}. */
function isJsonPath(pathname: string): boolean {
  return /^\/(api|admin)(\/|$)/.test(pathname);
}
