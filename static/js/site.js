// Small behaviour for every page (HTMX does the rest):
// - a confirm step (<details class="confirm-step">) closes again with its "Keep it" button,
//   and focus goes back to the button that opened it. Without JavaScript the same
//   question closes by pressing that button again.
// - the site's menu (<details class="nav-menu">) closes on a click outside it or on Escape
//   (focus back on its summary), as a menu does; without JavaScript its summary closes it.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var keep = event.target instanceof Element && event.target.closest("[data-keep]");
    if (!keep) return;
    var step = keep.closest("details");
    if (!step) return;
    step.open = false;
    var summary = step.querySelector("summary");
    if (summary) summary.focus();
  });

  document.addEventListener("click", function (event) {
    document.querySelectorAll("details.nav-menu[open]").forEach(function (menu) {
      if (!(event.target instanceof Node && menu.contains(event.target))) menu.open = false;
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var menu = document.querySelector("details.nav-menu[open]");
    if (!menu) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  });
})();
