// hcd check form: a period or grace quick pick fills its number and unit in place (without this script
// each pick is a submit button the server answers with the form filled in).
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
})();
