// Version comparison: while it runs, the live part of the page (verdict, figures, LLR chart, pair
// counts) is fetched again from the page itself (server-rendered and escaped there) and swapped in.
// Polling stops once the comparison is done.
(function () {
  "use strict";
  var root = document.getElementById("live-comparison");
  if (!root || root.dataset.status !== "running") return;
  var INTERVAL_MS = 1500;

  function poll() {
    fetch(window.location.pathname, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("comparison: HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("live-comparison");
        if (!fresh) throw new Error("comparison: no live part in the page");
        root.replaceChildren.apply(root, Array.prototype.slice.call(fresh.childNodes));
        root.dataset.status = fresh.dataset.status;
        if (fresh.dataset.status === "running") setTimeout(poll, INTERVAL_MS);
      })
      .catch(function () { setTimeout(poll, INTERVAL_MS * 4); });
  }

  setTimeout(poll, INTERVAL_MS);
})();
