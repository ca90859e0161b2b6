// What every page does in the browser, kept in a file of its own: the Content-Security-Policy
// (config/settings.py) runs no inline script or event handler.
(function () {
  "use strict";

  // A write over the user's limit (campaigns/throttle.py) answers 429 with a sentence, which
  // htmx does not swap (base.html's htmx-config): show it in the page's notice area.
  document.addEventListener("htmx:responseError", function (event) {
    const xhr = event.detail.xhr;
    const notice = document.getElementById("notice");
    if (!notice || !xhr || xhr.status !== 429) return;
    notice.textContent = xhr.responseText;
    notice.hidden = false;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    const notice = document.getElementById("notice");
    if (notice && event.detail.successful) notice.hidden = true;
  });

  // A question marked data-escape-keeps (a sparetime raise's or reversal's confirmation): Escape
  // inside it presses its Keep button (marked data-keep).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !event.target.closest) return;
    const question = event.target.closest("[data-escape-keeps]");
    const keep = question && question.querySelector("[data-keep]");
    if (!keep) return;
    event.preventDefault();
    keep.click();
  });

  // Fields marked data-select-on-focus (the invite link) select their text when focused.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("input[data-select-on-focus]")) {
      event.target.select();
    }
  });
})();
