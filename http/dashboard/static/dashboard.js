// hcd dashboard: every page that shows state keeps itself fresh without reloading: the checks table asks
// for its changed rows every few seconds (and words its "... ago" itself, from the server's clock; its
// filter applies as one types), and other pages ask for themselves and swap their elements
// marked data-live. When a refresh finds the session ended or the server away, a banner says so (and
// goes when it answers again). Also: times in the viewer's time zone, the down count in the title, and
// Copy buttons. Served by hcd itself; the pages have no inline script.
"use strict";

(function () {
  const HIDDEN_MS = 60000; // while the tab is hidden

  /** Shows `text` (with a sign-in link when `signIn`) in the page's one connection banner; null removes it. */
  function connectionBanner(text, signIn) {
    let banner = document.getElementById("connection-banner");
    if (text === null) {
      banner?.remove();
      return;
    }
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

  /**
   * Runs `refresh` every `everyMs` while the tab is visible (and at once when it becomes visible). It
   * answers "signed-out", "gone" or "ok", or throws when the server did not answer usefully: each is
   * said by the banner, and the asking goes on (signing in again in another tab, or the server coming
   * back, brings the page back by itself).
   */
  function keepFresh(refresh, everyMs) {
    let timer = null;
    async function tick() {
      try {
        const outcome = await refresh();
        if (outcome === "signed-out") connectionBanner("Signed out:", true);
        else if (outcome === "gone") connectionBanner("This page no longer exists (deleted?).", false);
        else connectionBanner(null);
      } catch (error) {
        connectionBanner("The server is not answering, retrying…", false);
      }
      clearTimeout(timer);
      timer = setTimeout(tick, document.hidden ? HIDDEN_MS : everyMs);
    }
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) tick();
    });
    timer = setTimeout(tick, everyMs);
    return tick;
  }

  /** The outcome a refresh's answer says before its body is read; null: a page to read. */
  function answerOutcome(response, expectedPath) {
    // a session that ended is sent to the sign-in page (a redirect) or refused
    if (response.redirected || new URL(response.url).pathname !== expectedPath || response.status === 401 || response.status === 403)
      return "signed-out";
    if (response.status === 404) return "gone";
    if (response.status !== 304 && !response.ok) throw new Error(`status ${response.status}`);
    return null;
  }

  const UNITS = [
    ["day", 86400000],
    ["hour", 3600000],
    ["minute", 60000],
    ["second", 1000],
  ];

  /** How long before `at` the instant `then` was, as the server words it (format.ts agoText): "just now", "3 minutes ago". */
  function agoText(then, at) {
    const ms = at - then;
    if (ms < 5000) return "just now";
    for (const [name, size] of UNITS) {
      const count = Math.floor(ms / size);
      if (count > 0) return `${count} ${name}${count === 1 ? "" : "s"} ago`;
    }
    return "just now";
  }

  /** Words each <time class="ago"> under `root` as "... ago" at the server's instant `nowMs`; its title keeps the exact time. */
  function relativeTimes(root, nowMs) {
    for (const time of root.querySelectorAll("time.ago[datetime]")) {
      const then = Date.parse(time.getAttribute("datetime"));
      if (!Number.isNaN(then)) time.textContent = agoText(then, nowMs);
    }
  }

  function refreshChecks(table) {
    const path = table.dataset.refresh;
    // the server's clock minus this one's: the rows carry instants, and the server's clock may not be the
    // browser's (another machine, or a virtual clock); every answer of the refresh says the server's now
    let offsetMs = Number(document.getElementById("check-rows")?.dataset.now ?? Date.now()) - Date.now();
    const serverNow = () => Date.now() + offsetMs;
    relativeTimes(table, serverNow());
    const now = keepFresh(async () => {
      const outcome = await rows();
      relativeTimes(table, serverNow()); // an idle page's "... ago" moves on without a download
      return outcome;
    }, 3000);
    filterAsTyped(now);
    async function rows() {
      const search = window.location.search; // an answer for a filter changed meanwhile is dropped
      // the rows' ETag: the server answers 304 (no body, next to no work) while they would not change
      const etag = document.getElementById("check-rows")?.dataset.etag;
      const headers = etag ? { accept: "text/html", "if-none-match": etag } : { accept: "text/html" };
      const response = await fetch(path + window.location.search, { credentials: "same-origin", cache: "no-store", headers });
      const outcome = answerOutcome(response, path);
      if (outcome !== null) return outcome;
      const now = Number(response.headers.get("x-hcd-now"));
      if (now > 0) offsetMs = now - Date.now();
      if (response.status === 304) {
        await response.arrayBuffer(); // empty, but read: until then the browser counts the request as still loading
        return "ok";
      }
      const text = await response.text();
      if (window.location.search !== search) return "ok";
      const parsed = new DOMParser().parseFromString(`<table>${text}</table>`, "text/html");
      const fresh = parsed.getElementById("check-rows");
      const current = document.getElementById("check-rows");
      if (fresh === null || current === null) return "ok";
      const imported = document.importNode(fresh, true);
      // a row this page shows already comes as a placeholder naming its check: the shown row takes its place
      const placeholders = imported.querySelectorAll("tr[data-keep]");
      if (placeholders.length > 0) {
        const shown = new Map();
        for (const row of current.rows) shown.set(row.dataset.ref, row);
        if (![...placeholders].every((p) => shown.has(p.dataset.keep))) {
          delete current.dataset.etag; // not the rows the server thought: ask for every row
          return rows();
        }
        for (const placeholder of placeholders) placeholder.replaceWith(shown.get(placeholder.dataset.keep));
      }
      localTimes(imported);
      current.replaceWith(imported);
      const down = Number(fresh.dataset.down || "0");
      document.title = (down > 0 ? `(${down} down) ` : "") + document.body.dataset.title;
      return "ok";
    }
  }

  /**
   * The checks list filters as one types in its search box or picks a status or sort: the page's address
   * takes the form's values (from the first page) and the rows are asked for at once (`now`). Picking a
   * tag submits the form, whose chosen tags are drawn by the server.
   */
  function filterAsTyped(now) {
    const form = document.querySelector("form.filters");
    if (form === null) return;
    let timer = null;
    const apply = () => {
      const query = new URLSearchParams();
      for (const [name, value] of new FormData(form)) if (typeof value === "string" && value !== "") query.append(name, value);
      if (query.get("sort") === "status") query.delete("sort"); // the default, as the server's links leave it out
      const search = query.toString() === "" ? "" : `?${query}`;
      if (search === window.location.search) return;
      history.replaceState(null, "", window.location.pathname + search);
      now();
    };
    form.addEventListener("input", (event) => {
      if (event.target.name !== "q") return;
      clearTimeout(timer);
      timer = setTimeout(apply, 300);
    });
    form.addEventListener("change", (event) => {
      if (event.target.name === "tag") form.requestSubmit();
      else if (event.target.tagName === "SELECT") apply();
    });
  }

  /** Asks for the page itself (304 while unchanged) and puts each fresh data-live element in place of the shown one of its id. */
  function refreshLive() {
    let etag = document.querySelector("meta[name=etag]")?.content ?? null; // the ETag of the page as loaded
    keepFresh(async () => {
      const headers = etag === null ? { accept: "text/html" } : { accept: "text/html", "if-none-match": etag };
      const response = await fetch(window.location.href, { credentials: "same-origin", cache: "no-store", headers });
      const outcome = answerOutcome(response, window.location.pathname);
      if (outcome !== null) return outcome;
      if (response.status === 304) {
        await response.arrayBuffer(); // empty, but read: until then the browser counts the request as still loading
        return "ok";
      }
      const parsed = new DOMParser().parseFromString(await response.text(), "text/html");
      // the sign-in page answers "/" itself, without a redirect
      if (parsed.querySelector("form[action='/signout']") === null) return "signed-out";
      etag = response.headers.get("etag");
      for (const fresh of parsed.querySelectorAll("[data-live][id]")) {
        const current = document.getElementById(fresh.id);
        if (current === null) continue;
        const imported = document.importNode(fresh, true);
        localTimes(imported);
        current.replaceWith(imported);
      }
      document.title = parsed.title;
      return "ok";
    }, 5000);
  }

  /** Each <time datetime> under `root` in the viewer's time zone; its title keeps the UTC time the server wrote. */
  function localTimes(root) {
    const format = new Intl.DateTimeFormat(undefined, {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    for (const time of root.querySelectorAll("time[datetime]:not(.ago)")) {
      const date = new Date(time.getAttribute("datetime"));
      if (Number.isNaN(date.getTime())) continue;
      if (!time.title) time.title = time.textContent;
      const parts = Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
      time.textContent = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
    }
  }

  function enableCopy() {
    document.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-copy]");
      if (button === null) return;
      const label = button.dataset.label || (button.dataset.label = button.textContent);
      // a button named for what it copies ("Copy the ping key") says its outcome in words and in name alike
      const name = button.dataset.name ?? (button.dataset.name = button.getAttribute("aria-label") ?? "");
      const say = (text) => {
        button.textContent = text;
        if (name !== "") button.setAttribute("aria-label", text === label ? name : text);
      };
      const byHand = () => {
        // no clipboard here (a plain-http origin other than localhost has none): select the text to copy
        say("Select and copy by hand");
        const code = button.parentElement?.querySelector("code");
        if (code) window.getSelection()?.selectAllChildren(code);
      };
      if (!navigator.clipboard) {
        byHand();
        return;
      }
      navigator.clipboard.writeText(button.dataset.copy).then(() => {
        say("Copied");
        setTimeout(() => say(label), 1500);
      }, byHand);
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    localTimes(document);
    const table = document.querySelector("table[data-refresh]");
    if (table !== null) refreshChecks(table);
    else if (document.querySelector("[data-live][id]") !== null) refreshLive();
    enableCopy();
  });
})();
