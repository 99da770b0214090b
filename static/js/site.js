// Small behaviour for every page (HTMX does the rest):
// - a confirm step (<details class="confirm-step">) closes again with its "Keep it" button,
//   and focus goes back to the button that opened it. Without JavaScript the same
//   question closes by pressing that button again.
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
})();
