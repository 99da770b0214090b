// "Copy" buttons: <button data-copy="ID"> copies the text of element ID to the clipboard and
// says so in the button (and to screen readers, through its aria-live status). Without the
// Clipboard API (an http:// address other than localhost) it selects the text instead, for
// a long-press or Ctrl+C.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element && event.target.closest("button[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var status = document.getElementById(button.getAttribute("aria-describedby") || "");
    function say(text) { if (status) status.textContent = text; }
    function select() {
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      say("Selected: copy it with your device's Copy.");
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        say("Copied.");
      }, select);
    } else {
      select();
    }
  });
})();
