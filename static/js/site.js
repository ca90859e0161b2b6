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

// A button marked data-copy="<id>" (the invite link) copies that field's text and says so in
// the status line marked data-copied-for="<id>". The clipboard API needs a secure context
// (https or localhost); elsewhere the field's text is selected and copied the older way.
(function () {
  "use strict";

  function say(id, text) {
    const status = document.querySelector('[data-copied-for="' + id + '"]');
    if (status) status.textContent = text;
  }

  function copyBySelection(field) {
    field.focus();
    field.select();
    try {
      return document.execCommand("copy");
    } catch (error) {
      return false;
    }
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("button[data-copy]");
    if (!button) return;
    const id = button.dataset.copy;
    const field = document.getElementById(id);
    if (!field) return;
    const done = function () {
      say(id, "Copied.");
    };
    const fallback = function () {
      say(id, copyBySelection(field) ? "Copied." : "Select the link and copy it (Ctrl+C).");
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, fallback);
    } else {
      fallback();
    }
  });
})();

// The new-campaign form (data-system-switch) shows only the chosen system's settings: each
// fieldset marked data-system="<system>" shows when its system is picked, and is disabled
// otherwise (not checked, not sent: the server ignores the other system's fields anyway).
(function () {
  "use strict";

  function show(form) {
    const chosen = form.querySelector('input[name="system"]:checked');
    form.querySelectorAll("fieldset[data-system]").forEach(function (fieldset) {
      const off = !chosen || fieldset.dataset.system !== chosen.value;
      fieldset.hidden = off;
      fieldset.disabled = off;
    });
  }

  document.querySelectorAll("form[data-system-switch]").forEach(show);
  document.addEventListener("change", function (event) {
    const form = event.target.closest && event.target.closest("form[data-system-switch]");
    if (form && event.target.name === "system") show(form);
  });
})();
