// hcd check form: a period or grace quick pick fills its number and unit in place (without this script
// each pick is a submit button the server answers with the form filled in); the add form suggests the slug
// from the name as one types it, until one types a slug of one's own.
"use strict";

(function () {
  const UNITS = [
    ["days", 86400],
    ["hours", 3600],
    ["minutes", 60],
  ];

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.preset");
    if (button === null) return;
    const [field, text] = button.value.split(":");
    const amount = document.getElementById(`f-${field}`);
    const unit = document.getElementById(`f-${field}_unit`);
    if (amount === null || unit === null) return; // not this form's: let the server answer
    event.preventDefault();
    const seconds = Number(text);
    const [name, size] = UNITS.find(([, size]) => seconds % size === 0) ?? ["seconds", 1];
    amount.value = String(seconds / size);
    unit.value = name;
    amount.focus();
  });

  /**
   * The reference's slug of a name: its compatibility decomposition without what is beyond Latin-1 (so
   * "é" is "e"), lower case, without what is not a letter, digit, _, -, or space, with each run of spaces
   * and hyphens one "-", none at either end; cut to `max` characters.
   */
  function slugOf(name, max) {
    return name
      .normalize("NFKD")
      .replace(/[\u0100-\uffff]/g, "")
      .toLowerCase()
      .replace(/[^\w\s-]/g, "")
      .replace(/[-\s]+/g, "-")
      .slice(0, max)
      .replace(/^-+|-+$/g, "");
  }

  document.addEventListener("DOMContentLoaded", () => {
    const form = document.querySelector("form[data-suggest-slug]");
    const name = document.getElementById("f-name");
    const slug = document.getElementById("f-slug");
    if (form === null || name === null || slug === null) return;
    const max = Number(form.dataset.suggestSlug);
    let suggested = slugOf(name.value, max); // a form sent back (a preview, an error) may hold the suggestion already
    name.addEventListener("input", () => {
      const next = slugOf(name.value, max);
      // an empty slug, or the one suggested last, follows the name; a slug typed by hand is never replaced
      if (slug.value === "" || slug.value === suggested) slug.value = next;
      suggested = next;
    });
  });
})();
