// Tournament progress: polls the small JSON endpoint and moves the bar without reloading the page.
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
  // Polling stops once the tournament is over.
  var INTERVAL_MS = 1000;

  function update(progress) {
    fill.style.width = progress.percent + "%";
    bar.setAttribute("aria-valuenow", String(progress.percent));
    ["status", "finished", "failed", "running", "queued", "total", "percent"].forEach(function (name) {
      var element = root.querySelector('[data-field="' + name + '"]');
      if (element) element.textContent = String(progress[name]);
    });
    if (progress.finished !== shownFinished) notice.hidden = false;
    root.dataset.status = progress.status;
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
