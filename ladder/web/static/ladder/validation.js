// A bot's versions table, live: while a version is pending (a worker compiles it and plays its smoke
// match), poll the bot's API detail and write each version's status, message and (for its owner) the log
// of a failed smoke match into its row. Text only, never markup: the messages quote what a bot printed.
(function () {
  "use strict";
  var table = document.getElementById("versions");
  if (!table) return;
  var url = table.dataset.botUrl;
  var INTERVAL_MS = 1000;

  function pendingRows() {
    return table.querySelectorAll('tr[data-status="pending"]');
  }

  function show(row, version) {
    var status = row.querySelector('[data-field="status"]');
    status.textContent = version.validation_status;
    status.className = "status " + version.validation_status;
    row.querySelector('[data-field="message"]').textContent = version.validation_message || "";
    var log = row.querySelector('[data-field="log"]');
    if (version.validation_log) {
      log.textContent = version.validation_log;
      log.hidden = false;
    }
    row.dataset.status = version.validation_status;
  }

  function poll() {
    if (!pendingRows().length) return;
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("bot: HTTP " + response.status);
        return response.json();
      })
      .then(function (bot) {
        bot.versions.forEach(function (version) {
          var row = table.querySelector('tr[data-version="' + version.number + '"]');
          if (row) show(row, version);
        });
      })
      .catch(function () { /* try again at the next tick */ })
      .then(function () {
        if (pendingRows().length) window.setTimeout(poll, INTERVAL_MS);
      });
  }

  window.setTimeout(poll, INTERVAL_MS);
})();
