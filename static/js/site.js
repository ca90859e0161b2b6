// What every page does in the browser, kept in a file of its own: the Content-Security-Policy
// (config/settings.py) runs no inline script or event handler.
(function () {
  "use strict";

  // Fields marked data-select-on-focus (the invite link) select their text when focused.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("input[data-select-on-focus]")) {
      event.target.select();
    }
  });
})();
