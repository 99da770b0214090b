// Club night: filter the members as you type, and count who is ticked ("9 ticked · 2
// matches, 1 sits out"; with fewer courts than that, "8 ticked · 3 courts: 6 play, 2 sit
// out"). Event delegation, so it keeps working after HTMX swaps the list or the rounds.
(function () {
  "use strict";

  function list() { return document.getElementById("present-list"); }

  function filter() {
    var box = document.getElementById("present-search");
    var root = list();
    if (!box || !root) return;
    var words = box.value.toLowerCase().trim().split(/\s+/).filter(Boolean);
    var shown = 0;
    root.querySelectorAll("li[data-name]").forEach(function (li) {
      var name = li.getAttribute("data-name");
      var match = words.every(function (w) { return name.indexOf(w) !== -1; });
      li.hidden = !match;
      if (match) shown += 1;
    });
    var none = root.querySelector("[data-no-match]");
    if (none) none.hidden = shown > 0;
  }

  // The courts box (beside "Propose a round"): a whole number caps the matches of a round.
  function courtsTyped() {
    var box = document.querySelector("input[name=courts]");
    var courts = box ? parseInt(box.value, 10) : NaN;
    return courts > 0 ? courts : null;
  }

  function sitOut(out) { return out + " sit" + (out === 1 ? "s" : "") + " out"; }

  function count() {
    var root = list();
    if (!root) return;
    var ticked = root.querySelectorAll("input[name=present]:checked").length;
    root.querySelector("[data-count]").textContent = ticked;
    var summary = root.querySelector("[data-summary]");
    var size = 2 * parseInt(summary.getAttribute("data-team-size"), 10);
    var matches = Math.floor(ticked / size);
    var courts = courtsTyped();
    var text = "";
    if (courts && matches > courts) {
      var playing = courts * size;
      text = "· " + courts + (courts === 1 ? " court: " : " courts: ") + playing + " play, " +
        sitOut(ticked - playing);
    } else if (matches > 0) {
      var out = ticked - matches * size;
      text = "· " + matches + (matches === 1 ? " match" : " matches");
      if (out > 0) text += ", " + sitOut(out);
    } else if (ticked > 0) {
      text = "· a match needs " + size;
    }
    summary.textContent = text;
  }

  // Enter submits with the form's first button, which is a listed guest's "Remove" once
  // there are guests: so Enter in the guest's name presses "Add guest" itself. In the
  // search box it only filters; in the courts box it proposes.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") return;
    var target = event.target;
    if (target.id === "present-search") {
      event.preventDefault();
    } else if (target.name === "courts" && target.form) {
      event.preventDefault();
      var propose = target.form.querySelector("button[data-propose]");
      if (propose) propose.click();
    } else if (target.id === "guest-name" && target.form) {
      event.preventDefault();
      var add = target.form.querySelector("button[data-add-guest]");
      if (add) add.click();
    }
  });
  document.addEventListener("input", function (event) {
    if (event.target.id === "present-search") filter();
    else if (event.target.name === "courts") count();
  });
  document.addEventListener("change", function (event) {
    if (event.target.name === "present") count();
  });
  document.addEventListener("htmx:afterSwap", function () { filter(); count(); });
  document.addEventListener("DOMContentLoaded", function () { filter(); count(); });
})();
