// hcd dashboard: refreshes the checks table every few seconds without reloading the page, keeps the
// down count in the title, says in a banner when a refresh finds the session ended or the server away
// (and takes the banner down when it answers again), and copies ping URLs. Served by hcd itself; the pages have no inline script.
"use strict";

(function () {
  const FAST_MS = 3000; // while the tab is visible
  const SLOW_MS = 60000; // while it is hidden

  /** Shows `text` (with a sign-in link when `signIn`) in the page's one connection banner; null removes it. */
  function connectionBanner(text, signIn) {
    let banner = document.getElementById("connection-banner");
    if (text === null) { banner?.remove(); return; }
    if (banner === null) {
      banner = document.createElement("p");
      banner.id = "connection-banner";
      banner.className = "error";
      banner.setAttribute("role", "alert");
      document.getElementById("main")?.prepend(banner);
    }
    if (banner.dataset.text === text) return;
    banner.dataset.text = text;
    banner.textContent = text;
    if (signIn) {
      const link = document.createElement("a");
      link.href = "/";
      link.textContent = "sign in again";
      banner.append(" ", link);
    }
  }

  function refreshChecks(table) {
    const url = table.dataset.refresh + window.location.search;
    let timer = null;
    async function tick() {
      try {
        // the rows' ETag: the server answers 304 (no body, next to no work) while they would not change
        const etag = document.getElementById("check-rows")?.dataset.etag;
        const headers = etag ? { accept: "text/html", "if-none-match": etag } : { accept: "text/html" };
        const response = await fetch(url, { credentials: "same-origin", cache: "no-store", headers });
        // a session that ended is sent to the sign-in page (a redirect) or refused: say so, keep asking
        // (signing in again in another tab brings this page back)
        if (response.redirected || !response.url.includes("/checks/rows") || response.status === 401 || response.status === 403) {
          connectionBanner("Signed out:", true);
          schedule();
          return;
        }
        if (response.status !== 304 && !response.ok) throw new Error(`status ${response.status}`);
        connectionBanner(null);
        if (response.status === 304) { schedule(); return; }
        const parsed = new DOMParser().parseFromString(`<table>${await response.text()}</table>`, "text/html");
        const rows = parsed.getElementById("check-rows");
        const current = document.getElementById("check-rows");
        if (rows === null || current === null) return;
        const fresh = document.importNode(rows, true);
        // a row this page shows already comes as a placeholder naming its check: the shown row takes its place
        const placeholders = fresh.querySelectorAll("tr[data-keep]");
        if (placeholders.length > 0) {
          const shown = new Map();
          for (const row of current.rows) shown.set(row.dataset.ref, row);
          if (![...placeholders].every((p) => shown.has(p.dataset.keep))) {
            delete current.dataset.etag; // not the rows the server thought: ask for every row
            tick();
            return;
          }
          for (const placeholder of placeholders) placeholder.replaceWith(shown.get(placeholder.dataset.keep));
        }
        current.replaceWith(fresh);
        const down = Number(rows.dataset.down || "0");
        document.title = (down > 0 ? `(${down} down) ` : "") + document.body.dataset.title;
      } catch (error) {
        // the server is restarting, failing or the network is gone: say so and try again on the next tick
        connectionBanner("The server is not answering, retrying…", false);
      }
      schedule();
    }
    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(tick, document.hidden ? SLOW_MS : FAST_MS);
    }
    document.addEventListener("visibilitychange", () => { if (!document.hidden) tick(); });
    schedule();
  }

  function enableCopy() {
    document.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-copy]");
      if (button === null) return;
      navigator.clipboard.writeText(button.dataset.copy).then(() => {
        button.textContent = "Copied";
        setTimeout(() => { button.textContent = "Copy"; }, 1500);
      }, () => { button.textContent = "Select and copy by hand"; });
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.querySelector("table[data-refresh]");
    if (table !== null) refreshChecks(table);
    enableCopy();
  });
})();
