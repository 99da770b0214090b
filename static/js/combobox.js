// The report form's name type-ahead as a WAI-ARIA combobox (the APG "list autocomplete"
// pattern). HTMX fills the list as you type; this script adds the keys: ArrowDown and ArrowUp
// move through the names, Enter picks the highlighted one (never submitting the form while
// the list is open), Escape closes the list. Focus stays in the box, also after a pick swaps
// the slot. Event delegation, so it keeps working after HTMX swaps a slot.
// Back to the form (after reporting, say): the boxes say autocomplete="off", so the browser
// does not fill them in again as it does the other inputs; their names are kept for this tab
// when the page is left and, on the way back, put in again with their chips.
(function () {
  "use strict";

  var SELECTOR = "input[role=combobox][aria-controls]";
  var refocus = null; // the id of the box to focus again once a pick has swapped its slot

  function listOf(input) { return document.getElementById(input.getAttribute("aria-controls")); }
  function options(list) {
    return Array.prototype.slice.call(list.querySelectorAll("[role=option]:not([aria-disabled=true])"));
  }
  function isOpen(list) { return list.children.length > 0; }
  function activeIndex(list) {
    var all = options(list);
    for (var i = 0; i < all.length; i += 1) {
      if (all[i].getAttribute("aria-selected") === "true") return i;
    }
    return -1;
  }

  function highlight(input, list, index) {
    options(list).forEach(function (option, i) {
      option.setAttribute("aria-selected", i === index ? "true" : "false");
      if (i === index) {
        input.setAttribute("aria-activedescendant", option.id);
        option.scrollIntoView({ block: "nearest" });
      }
    });
    if (index < 0) input.removeAttribute("aria-activedescendant");
  }

  function sync(input, list) {
    input.setAttribute("aria-expanded", isOpen(list) ? "true" : "false");
    input.removeAttribute("aria-activedescendant");
  }

  function close(input, list) {
    list.innerHTML = "";
    sync(input, list);
  }

  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.matches(SELECTOR)) return;
    var list = listOf(input);
    if (!list || !isOpen(list)) return;
    var all = options(list);
    var index = activeIndex(list);
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!all.length) return;
      var step = event.key === "ArrowDown" ? 1 : -1;
      highlight(input, list, index < 0 ? (step > 0 ? 0 : all.length - 1) : (index + step + all.length) % all.length);
    } else if (event.key === "Enter") {
      event.preventDefault(); // the list is open: Enter picks, it does not report the match
      var chosen = all[index >= 0 ? index : (all.length === 1 ? 0 : -1)];
      if (chosen) { refocus = input.id; chosen.click(); }
    } else if (event.key === "Escape") {
      event.preventDefault();
      close(input, list);
    }
  });

  // The text changed: the "✓ chosen" mark beside the box no longer names what it says. (Not
  // left to the type-ahead's answer: one still on its way when a name is picked from an
  // earlier list would clear the new pick's mark.)
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.matches(SELECTOR)) return;
    var picked = document.getElementById("picked-" + input.name);
    if (picked) picked.textContent = "";
  });

  // A click or tap on a name: focus comes back to the box once the slot is swapped.
  document.addEventListener("click", function (event) {
    var option = event.target instanceof Element && event.target.closest("[role=option]");
    var list = option && option.closest("[role=listbox]");
    var input = list && document.querySelector("[aria-controls='" + list.id + "']");
    if (input) refocus = input.id;
  });

  // New names arrived (or a slot was swapped): aria-expanded follows the list, and nothing is
  // highlighted in a new list.
  document.addEventListener("htmx:afterSettle", function (event) {
    var swapped = event.target;
    document.querySelectorAll(SELECTOR).forEach(function (input) {
      var list = listOf(input);
      if (list && (list === swapped || input.getAttribute("aria-expanded") !== String(isOpen(list)))) {
        sync(input, list);
      }
    });
  });

  // A pick swapped the slot: focus comes back to its box, unless it has moved on elsewhere
  // (the swap took away the focused option, leaving focus on the page itself).
  document.addEventListener("htmx:load", function () {
    if (!refocus) return;
    var box = document.getElementById(refocus);
    if (!box || box.getAttribute("role") !== "combobox") return;
    refocus = null;
    var now = document.activeElement;
    if (!now || now === document.body || !now.isConnected || now.closest("[role=listbox]")) box.focus();
  });

  function keptKey() { return "combobox:" + location.pathname + location.search; }

  window.addEventListener("pagehide", function () {
    var kept = {};
    document.querySelectorAll(SELECTOR).forEach(function (input) {
      if (input.id && input.value) kept[input.id] = input.value;
    });
    try { sessionStorage.setItem(keptKey(), JSON.stringify(kept)); } catch (e) { /* private mode */ }
  });

  // Only a page reached by Back or Forward is filled in (a page kept whole in the
  // back-forward cache still has its names and chips: nothing to do).
  window.addEventListener("pageshow", function (event) {
    var entry = window.performance && performance.getEntriesByType
      ? performance.getEntriesByType("navigation")[0] : null;
    if (event.persisted || !entry || entry.type !== "back_forward" || !window.htmx) return;
    var kept;
    try { kept = JSON.parse(sessionStorage.getItem(keptKey()) || "{}"); } catch (e) { return; }
    Object.keys(kept).forEach(function (id) {
      var input = document.getElementById(id);
      if (!input || !input.matches(SELECTOR) || input.value) return;
      var slot = input.closest(".player-slot");
      // The slot again, as a pick from the list gives it: the name and its chip. The box is
      // the request's source (its hx-vals say which slot), one request per box.
      htmx.ajax("GET", input.getAttribute("hx-get"), {
        source: input, target: "#" + slot.id, swap: "outerHTML", values: { pick: kept[id] }
      });
    });
  });
})();
