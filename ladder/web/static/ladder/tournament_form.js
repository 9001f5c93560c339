// The tournament form offers the bots of one game: choosing another game reloads the page for that
// game's bots and players (a plain ?game= request, the name typed so far kept), instead of listing
// every game's bots in one page.
(function () {
  "use strict";
  var select = document.getElementById("id_game");
  if (!select || !select.form) return;
  select.addEventListener("change", function () {
    var params = new URLSearchParams();
    params.set("game", select.value);
    var name = select.form.elements.namedItem("name");
    if (name && name.value) params.set("name", name.value);
    window.location.assign(window.location.pathname + "?" + params.toString());
  });
})();
