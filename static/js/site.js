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

  // A facts push (rolls/push.py) is a comment naming the characters whose HP, ratings, mana or
  // sparetime changed: every piece showing them fetches itself again, rendered for this viewer
  // (hx-trigger="facts-<id> from:body"; the party and the GM's lists: "facts"). After a
  // reconnect, all of them do ("facts-resync"): a push may have been missed meanwhile.
  const FACTS = /<!--facts ([\d ]+)-->/;
  document.addEventListener("htmx:wsAfterMessage", function (event) {
    const match = typeof event.detail.message === "string" && FACTS.exec(event.detail.message);
    if (!match) return;
    match[1].split(" ").forEach(function (id) {
      htmx.trigger(document.body, "facts-" + id);
    });
    htmx.trigger(document.body, "facts");
  });
  // The socket's element tells whether it is open (data-socket), for styles and tests.
  let opened = false;
  document.addEventListener("htmx:wsOpen", function (event) {
    event.detail.elt.dataset.socket = "open";
    if (opened) htmx.trigger(document.body, "facts-resync");
    opened = true;
  });
  document.addEventListener("htmx:wsClose", function (event) {
    event.detail.elt.dataset.socket = "closed";
  });

  // Fields marked data-select-on-focus (the invite link) select their text when focused.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("input[data-select-on-focus]")) {
      event.target.select();
    }
  });
})();
