// Replay viewer: steps through a finished match, one board per step fetched from the frame endpoint.
// The page is complete without this script (the first frame is drawn by the server); the script adds
// play/pause, stepping, the scrubber, keyboard arrows and a URL that always points at the shown step.
// It also moves the charts' cursors (drawn by the server; their svg says how a step maps to x) and, for
// a bot's owner, redraws each seat's log panel from the "decisions" data block.
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
  var decisionsNode = document.getElementById("decisions");
  var owned = decisionsNode ? JSON.parse(decisionsNode.textContent) : null;
  var charts = Array.prototype.slice.call(root.querySelectorAll("svg.score-chart, svg.think-chart"));
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
    moveCursors(step);
    if (owned) showPanels(step);
  }

  // --- Charts: the cursor follows the step; a click goes to a step -----------------------------------

  function axis(svg) {
    return { x0: parseFloat(svg.dataset.x0), x1: parseFloat(svg.dataset.x1), domain: parseInt(svg.dataset.domain, 10) };
  }

  function chartX(svg, step) {
    var a = axis(svg);
    return a.x0 + (a.x1 - a.x0) * Math.min(step, a.domain) / a.domain;
  }

  function moveCursors(step) {
    charts.forEach(function (svg) {
      var x = chartX(svg, step).toFixed(1);
      var cursor = svg.querySelector("line.cursor");
      if (cursor) { cursor.setAttribute("x1", x); cursor.setAttribute("x2", x); }
      var dots = svg.querySelectorAll("circle.cursor-dot");
      if (!dots.length) return;
      var y0 = parseFloat(svg.dataset.y0), y1 = parseFloat(svg.dataset.y1);
      var low = parseFloat(svg.dataset.low), high = parseFloat(svg.dataset.high);
      var scores = timeline[step].scores;
      Array.prototype.forEach.call(dots, function (dot) {
        var score = scores[parseInt(dot.dataset.seat, 10)];
        dot.setAttribute("cx", x);
        dot.setAttribute("cy", (y0 + (score - low) / ((high - low) || 1) * (y1 - y0)).toFixed(1));
      });
    });
  }

  // The step under a click, in the chart's own units (its viewBox), unclamped.
  function stepAtClick(svg, event) {
    var point = svg.createSVGPoint();
    point.x = event.clientX;
    point.y = event.clientY;
    var local = point.matrixTransform(svg.getScreenCTM().inverse());
    var a = axis(svg);
    return (local.x - a.x0) / (a.x1 - a.x0) * a.domain;
  }

  charts.forEach(function (svg) {
    svg.addEventListener("click", function (event) {
      var at = stepAtClick(svg, event);
      var target = Math.round(at);
      var panel = svg.closest(".seat-log");
      if (panel && owned) {
        // A think-time bar stands at the step its decision led to: go to the nearest bar's step.
        var seat = seatData(parseInt(panel.dataset.seat, 10));
        if (!seat || !seat.decisions.length) return;
        var best = seat.decisions[0];
        seat.decisions.forEach(function (d) { if (Math.abs(d.step + 1 - at) < Math.abs(best.step + 1 - at)) best = d; });
        target = best.step + 1;
      }
      pause();
      go(target);
    });
  });

  // --- The owner's log panels ------------------------------------------------------------------------

  function seatData(position) {
    for (var i = 0; i < owned.seats.length; i++) if (owned.seats[i].position === position) return owned.seats[i];
    return null;
  }

  // The latest decision whose action led to this step or before it; at the last step, every decision
  // (the answer never played too). Same rule as replay.decision_shown on the server.
  function shownAt(decisions, step) {
    if (step >= owned.last) return decisions.length ? decisions.length - 1 : null;
    var low = 0, high = decisions.length;
    while (low < high) {
      var middle = (low + high) >> 1;
      if (decisions[middle].step < step) low = middle + 1; else high = middle;
    }
    return low > 0 ? low - 1 : null;
  }

  // Same texts as replay.decision_label and views.clock_label on the server.
  function decisionLabel(decisions, index, step, seat) {
    if (index === null) return seat + " has decided nothing before step " + step;
    var d = decisions[index];
    if (d.step >= owned.last) return seat + " decided after step " + owned.last + " in " + d.ms + " ms; that answer was never played";
    var text = seat + " decided step " + (d.step + 1) + " in " + d.ms + " ms";
    return d.step + 1 === step ? text : text + " (its latest decision before step " + step + ")";
  }

  function clockLabel(bankLeft) {
    return "move clock " + owned.move_ms + " ms · bank left " + (bankLeft / 1000).toFixed(1) + " s of " +
      (owned.bank_ms / 1000).toFixed(1) + " s";
  }

  // Text only (textContent): what a bot printed is hostile.
  function showPanels(step) {
    owned.seats.forEach(function (seat) {
      var panel = root.querySelector('.seat-log[data-seat="' + seat.position + '"]');
      if (!panel) return;
      var index = shownAt(seat.decisions, step);
      var shown = index === null ? null : seat.decisions[index];
      panel.querySelector('[data-field="decision-label"]').textContent = decisionLabel(seat.decisions, index, step, seat.seat_label);
      panel.querySelector('[data-field="decision-clock"]').textContent = clockLabel(shown ? shown.bank_ms : owned.bank_ms);
      var log = panel.querySelector('[data-field="decision-log"]');
      if (panel.dataset.decision !== String(index)) {
        log.textContent = shown ? shown.log : "";
        log.scrollTop = 0;
      }
      log.dataset.empty = shown ? "printed nothing" : "no decision yet";
      panel.dataset.decision = String(index);
    });
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

  if (owned) showPanels(current);
  root.dataset.shown = String(current);
  root.classList.add("ready");
})();
