// Replay viewer: steps through a finished match, one board per step fetched from the frame endpoint.
// The page is complete without this script (the first frame is drawn by the server); the script adds
// play/pause, stepping, the scrubber, keyboard arrows and a URL that always points at the shown step.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root) return;
  var frameUrl = root.dataset.frameUrl;
  var last = parseInt(root.dataset.last, 10);
  var current = parseInt(root.dataset.step, 10);
  var timeline = JSON.parse(document.getElementById("timeline").textContent);
  var names = JSON.parse(document.getElementById("seat-names").textContent);
  var board = root.querySelector(".board");
  var scrubber = root.querySelector(".scrubber");
  var playButton = root.querySelector('[data-act="play"]');
  var permalink = root.querySelector(".permalink");
  var cache = {};
  var wanted = current;
  var timer = null;
  // Steps per second while playing; long games (thousands of actions) would take too long at 1.
  var PLAY_INTERVAL_MS = last > 400 ? 120 : 500;

  function field(name) { return root.querySelector('[data-field="' + name + '"]'); }

  function seatLabel(seat) {
    if (seat === null || seat === undefined) return "nobody, the game is over";
    return seat < names.length ? "seat " + seat + " (" + names[seat] + ")" : "seat " + seat;
  }

  // Text only (textContent), never markup: bot names and actions are user data.
  function showInfo(step) {
    var info = timeline[step];
    var action = field("action");
    action.textContent = "";
    if (info.action === null) {
      action.textContent = "(start of the game)";
    } else {
      action.appendChild(document.createTextNode(seatLabel(info.actor) + ": "));
      var code = document.createElement("code");
      code.textContent = info.action;
      action.appendChild(code);
    }
    field("to_move").textContent = seatLabel(info.to_move);
    field("scores").textContent = info.scores.map(function (score, seat) {
      return (seat < names.length ? names[seat] : "seat " + seat) + " " + score;
    }).join(" · ");
    field("step").textContent = String(step);
    scrubber.value = String(step);
    permalink.href = "?step=" + step;
    root.dataset.step = String(step);
  }

  function showFrame(frame) {
    if (frame.svg !== null) {
      // SVG drawn by the engine's renderer on our server, which escapes every name it writes.
      board.innerHTML = frame.svg;
    } else {
      board.textContent = "";
      var pre = document.createElement("pre");
      pre.className = "view-json";
      pre.textContent = frame.view_json;
      board.appendChild(pre);
    }
  }

  function fetchFrame(step) {
    if (!cache[step]) {
      cache[step] = fetch(frameUrl + "?step=" + step, { headers: { Accept: "application/json" } })
        .then(function (response) {
          if (!response.ok) throw new Error("frame " + step + ": HTTP " + response.status);
          return response.json();
        })
        .catch(function (error) { delete cache[step]; throw error; });
    }
    return cache[step];
  }

  function go(step) {
    step = Math.max(0, Math.min(last, step));
    wanted = step;
    showInfo(step);
    history.replaceState(null, "", "?step=" + step);
    return fetchFrame(step).then(function (frame) {
      // A slower, older request must not overwrite a newer step.
      if (wanted === step) {
        showFrame(frame);
        current = step;
        root.dataset.shown = String(step);
      }
      if (step < last) fetchFrame(step + 1).catch(function () {});
    }).catch(function (error) {
      board.setAttribute("data-error", String(error.message));
      pause();
    });
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playButton.textContent = "▶ Play";
    root.classList.remove("playing");
  }

  function play() {
    if (wanted >= last) go(0);
    playButton.textContent = "⏸ Pause";
    root.classList.add("playing");
    timer = setInterval(function () {
      if (wanted >= last) { pause(); return; }
      go(wanted + 1);
    }, PLAY_INTERVAL_MS);
  }

  root.querySelector(".controls").addEventListener("click", function (event) {
    var button = event.target.closest("button[data-act]");
    if (!button) return;
    var act = button.dataset.act;
    if (act === "play") { if (timer === null) play(); else pause(); return; }
    pause();
    if (act === "first") go(0);
    else if (act === "back") go(wanted - 1);
    else if (act === "forward") go(wanted + 1);
    else if (act === "last") go(last);
  });

  scrubber.addEventListener("input", function () { pause(); go(parseInt(scrubber.value, 10)); });

  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" && event.target !== scrubber) return;
    if (tag === "textarea" || tag === "select") return;
    if (event.key === "ArrowRight") { pause(); go(wanted + 1); event.preventDefault(); }
    else if (event.key === "ArrowLeft") { pause(); go(wanted - 1); event.preventDefault(); }
    else if (event.key === "Home") { pause(); go(0); event.preventDefault(); }
    else if (event.key === "End") { pause(); go(last); event.preventDefault(); }
    else if (event.key === " " && tag !== "button") { if (timer === null) play(); else pause(); event.preventDefault(); }
  });

  root.dataset.shown = String(current);
  root.classList.add("ready");
})();
