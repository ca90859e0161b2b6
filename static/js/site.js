// What every page does in the browser, kept in a file of its own: the Content-Security-Policy
// (config/settings.py) runs no inline script or event handler.
(function () {
  "use strict";

  // The theme. Without a choice the page follows the system (prefers-color-scheme, in
  // rollroom.css); the topbar's toggle stores the reader's choice ("light" or "dark") in
  // localStorage and sets it on <html data-theme>. base.html loads this file in <head>, not
  // deferred, so a stored choice applies before the page is drawn (no flash of the other theme).
  const THEME_KEY = "theme";
  const root = document.documentElement;
  const systemDark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function storedTheme() {
    try {
      return window.localStorage.getItem(THEME_KEY);
    } catch (error) {
      return null; // storage refused (private mode): follow the system
    }
  }

  function applyTheme(theme) {
    if (theme === "light" || theme === "dark") root.dataset.theme = theme;
    else delete root.dataset.theme;
  }

  function currentTheme() {
    return root.dataset.theme || (systemDark && systemDark.matches ? "dark" : "light");
  }

  function showToggles() {
    document.querySelectorAll("[data-theme-toggle]").forEach(function (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", String(currentTheme() === "dark"));
    });
  }

  applyTheme(storedTheme());
  document.addEventListener("DOMContentLoaded", showToggles);
  if (systemDark && systemDark.addEventListener) systemDark.addEventListener("change", showToggles);
  // Another tab of the site chose: follow it.
  window.addEventListener("storage", function (event) {
    if (event.key !== THEME_KEY) return;
    applyTheme(event.newValue);
    showToggles();
  });
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-theme-toggle]");
    if (!button) return;
    const theme = currentTheme() === "dark" ? "light" : "dark";
    applyTheme(theme);
    try {
      window.localStorage.setItem(THEME_KEY, theme);
    } catch (error) {
      // not remembered; the page still switches
    }
    showToggles();
  });

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

  // Fields marked data-select-on-focus (the invite link) select their text when focused.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("input[data-select-on-focus]")) {
      event.target.select();
    }
  });
})();
