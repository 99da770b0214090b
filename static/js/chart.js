// The rating chart by touch and keyboard: a tap (or click) anywhere on the chart picks the
// day nearest to it, an arrow key moves to the day before or after; the day's rating, ± and
// change are written under the chart (aria-live) and its dot is marked. The dots' <title>
// tooltips need a mouse; this needs nothing but a thumb.
(function () {
  "use strict";

  function dots(svg) { return Array.prototype.slice.call(svg.querySelectorAll("circle.dot")); }

  function show(svg, dot) {
    dots(svg).forEach(function (d) { d.classList.toggle("active", d === dot); });
    var readout = svg.closest("figure").querySelector(".chart-readout");
    if (readout && dot) readout.textContent = dot.getAttribute("data-reading");
  }

  function nearest(svg, clientX) {
    var matrix = svg.getScreenCTM();
    if (!matrix) return null;
    var point = svg.createSVGPoint();
    point.x = clientX;
    point.y = 0;
    var x = point.matrixTransform(matrix.inverse()).x;
    var best = null;
    var distance = Infinity;
    dots(svg).forEach(function (d) {
      var away = Math.abs(parseFloat(d.getAttribute("cx")) - x);
      if (away < distance) { distance = away; best = d; }
    });
    return best;
  }

  document.addEventListener("click", function (event) {
    var svg = event.target instanceof Element && event.target.closest(".chart svg");
    if (svg) show(svg, nearest(svg, event.clientX));
  });

  document.addEventListener("keydown", function (event) {
    var svg = event.target instanceof Element && event.target.closest(".chart svg");
    if (!svg || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
    event.preventDefault();
    var all = dots(svg);
    if (!all.length) return;
    var now = all.indexOf(svg.querySelector("circle.dot.active"));
    var next = now < 0 ? all.length - 1 : now + (event.key === "ArrowRight" ? 1 : -1);
    show(svg, all[Math.max(0, Math.min(all.length - 1, next))]);
  });
})();
