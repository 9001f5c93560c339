// Tournament progress: polls the small JSON endpoint and moves the bar without reloading the page.
// When more matches have finished, the standings, crosstable and recent matches are refreshed from the
// page itself (server-rendered and escaped there), at most once per REFRESH_MS; the notice with a
// reload link is the fallback if that fails.
(function () {
  "use strict";
  var root = document.getElementById("progress");
  if (!root) return;
  var url = root.dataset.progressUrl;
  var bar = root.querySelector(".progress");
  var fill = root.querySelector(".bar");
  var notice = root.querySelector(".notice");
  // The standings below were computed with this many finished matches.
  var shownFinished = parseInt(root.querySelector('[data-field="finished"]').textContent, 10);
  var results = document.getElementById("live-results");
  var refreshing = false;
  var lastRefresh = 0;
  var latestFinished = shownFinished;
  // Polling stops once the tournament is over.
  var INTERVAL_MS = 1000;
  var REFRESH_MS = 3000;

  function refreshResults(finished, force) {
    if (refreshing || !results) return;
    if (!force && Date.now() - lastRefresh < REFRESH_MS) return;
    refreshing = true;
    lastRefresh = Date.now();
    fetch(window.location.pathname, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("standings: HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("live-results");
        if (!fresh) throw new Error("standings: no results in the page");
        results.replaceChildren.apply(results, Array.prototype.slice.call(fresh.childNodes));
        shownFinished = finished;
        notice.hidden = true;
      })
      .catch(function () { notice.hidden = false; })
      .then(function () {
        refreshing = false;
        // Matches that finished while this refresh was in flight (the last ones above all) are not lost.
        if (latestFinished !== shownFinished && root.dataset.status !== "running") refreshResults(latestFinished, true);
      });
  }

  function update(progress) {
    fill.style.width = progress.percent + "%";
    bar.setAttribute("aria-valuenow", String(progress.percent));
    ["status", "finished", "failed", "running", "queued", "total", "percent"].forEach(function (name) {
      var element = root.querySelector('[data-field="' + name + '"]');
      if (element) element.textContent = String(progress[name]);
    });
    latestFinished = progress.finished;
    root.dataset.status = progress.status;
    if (progress.finished !== shownFinished) refreshResults(progress.finished, progress.status !== "running");
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("progress: HTTP " + response.status);
        return response.json();
      })
      .then(function (progress) {
        update(progress);
        if (progress.status === "running") setTimeout(poll, INTERVAL_MS);
      })
      .catch(function () { setTimeout(poll, INTERVAL_MS * 5); });
  }

  if (root.dataset.status === "running") setTimeout(poll, INTERVAL_MS);
})();
