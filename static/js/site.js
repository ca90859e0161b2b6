// What every page does in the browser, kept in a file of its own: the Content-Security-Policy
// (config/settings.py) runs no inline script or event handler. base.html loads it in <head>, not
// deferred (the theme applies before the page is drawn): whatever reads the page waits for
// DOMContentLoaded or listens on document.
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

  // The toggle says which theme is on in words too (its pressed look alone did not).
  function showToggles() {
    const dark = currentTheme() === "dark";
    document.querySelectorAll("[data-theme-toggle]").forEach(function (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", String(dark));
      button.textContent = dark ? "Dark theme: on" : "Dark theme: off";
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

  // A sparetime build (a character's sheet, form[data-build]): what the points typed cost, against
  // the free sparetime (data-free), as they are typed; its button waits for an affordable build.
  function countBuild(form) {
    let cost = 0;
    form.querySelectorAll("input[data-cost]").forEach(function (input) {
      const points = Math.max(0, Math.floor(Number(input.value) || 0));
      cost += points * Number(input.dataset.cost);
    });
    const free = Number(form.dataset.free);
    const total = form.querySelector("[data-build-total]");
    if (total) {
      total.textContent =
        "Costs " + cost + " of " + free + " free sparetime." +
        (cost > free ? " Not enough: take some points off." : "");
    }
    const button = form.querySelector("button[type=submit]");
    if (button) button.disabled = cost === 0 || cost > free;
  }
  document.addEventListener("input", function (event) {
    const form = event.target.closest && event.target.closest("form[data-build]");
    if (form) countBuild(form);
  });
  document.addEventListener("htmx:load", function (event) {
    const root = event.detail && event.detail.elt;
    if (root && root.querySelectorAll) root.querySelectorAll("form[data-build]").forEach(countBuild);
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form[data-build]").forEach(countBuild);
  });

  // A write or an odds preview over its limit (core/throttle.py) answers 429 with a sentence,
  // and a request while the database is unreachable (config/views.py) 503: htmx neither swaps
  // nor treats them as errors (base.html's htmx-config): show the sentence in the page's notice
  // area, until an answer that went through.
  document.addEventListener("htmx:afterRequest", function (event) {
    const xhr = event.detail.xhr;
    const notice = document.getElementById("notice");
    if (!notice || !xhr) return;
    if (xhr.status === 429 || xhr.status === 503) {
      notice.textContent = xhr.responseText;
      notice.hidden = false;
    } else if (event.detail.successful) {
      notice.hidden = true;
    }
  });

  // A facts push (core/push.py) is a comment naming the characters whose HP, ratings, mana or
  // sparetime changed: every piece showing them fetches itself again, rendered for this viewer
  // (hx-trigger="facts-<id> from:body"; the party and the GM's lists: "facts"). It may name,
  // instead, the viewer's delegation ("facts-delegation": the campaign page's section). After a
  // reconnect, all of them do ("facts-resync"): a push may have been missed meanwhile.
  const FACTS = /<!--facts ([\w ]+)-->/;
  document.addEventListener("htmx:wsAfterMessage", function (event) {
    const match = typeof event.detail.message === "string" && FACTS.exec(event.detail.message);
    if (!match) return;
    match[1].split(" ").forEach(function (id) {
      htmx.trigger(document.body, "facts-" + id);
    });
    htmx.trigger(document.body, "facts");
  });
  // A write's own facts push can come before the write's answer. A piece that holds the target
  // of a write still in flight fetches itself again only once that answer is in: fetched before,
  // it would replace the target, and the answer (with its notice) would land in a detached copy.
  // A fetch already on its way when the write starts is never swapped in, whether it comes back
  // before or after the write's answer (it may show the piece as it was): it is made again after.
  const writing = new Set();
  const deferred = new Set();
  const fetching = new Set(); // facts fetches on their way
  const stale = new WeakSet(); // those that were on their way when a write into their piece began
  function holdsWrite(piece) {
    return Array.from(writing).some(function (write) {
      return piece && write.target && piece.contains(write.target);
    });
  }
  function factsTrigger(config) {
    const trigger = config && config.triggeringEvent;
    return trigger && /^facts/.test(trigger.type) ? trigger.type : null;
  }
  function fetchDeferred() {
    if (writing.size || !deferred.size) return;
    const types = Array.from(deferred);
    deferred.clear();
    types.forEach(function (type) {
      htmx.trigger(document.body, type);
    });
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    const config = event.detail.requestConfig;
    if (!config) return;
    const facts = factsTrigger(config);
    if (facts) {
      if (holdsWrite(config.target)) {
        event.preventDefault();
        deferred.add(facts);
      } else {
        fetching.add(config);
      }
      return;
    }
    if (config.verb === "get") return;
    writing.add(config);
    fetching.forEach(function (fetch) {
      if (fetch.target && config.target && fetch.target.contains(config.target)) stale.add(fetch);
    });
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    const config = event.detail.requestConfig;
    const facts = factsTrigger(config);
    if (facts && (stale.has(config) || holdsWrite(event.detail.target))) {
      event.detail.shouldSwap = false;
      deferred.add(facts);
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    const config = event.detail.requestConfig;
    if (!config) return;
    if (fetching.delete(config)) {
      fetchDeferred(); // a stale fetch answered after the writes: made again now
      return;
    }
    if (!writing.delete(config)) return;
    writing.forEach(function (write) {
      if (!document.body.contains(write.target)) writing.delete(write); // its answer went nowhere
    });
    fetchDeferred();
  });
  // A piece fetched again by a facts push shows the new facts, and keeps what the viewer had in
  // it:
  // - the notice the last write left in it (a raise's "Endurance raised to 1."): its new content
  //   is true, and the notice still says what was done (the write's own facts push often arrives
  //   with its answer);
  // - what the viewer opened (a <details> with an id: the sheet's editor);
  // - what the viewer typed and has not sent yet (the GM's half-typed mana maximum while a
  //   player's roll spends mana, a player's HP): each such value goes back into the same field
  //   of the new content (by id, else by its form's action and its name), with the focus and the
  //   caret if it had them. A piece whose fetch sends its fields along (hx-include: the roll
  //   form) gets them back from the server instead.
  function typedInto(field) {
    if (field.type === "checkbox" || field.type === "radio") {
      return field.checked !== field.defaultChecked;
    }
    if (field.tagName === "SELECT") {
      if (field.multiple) return false; // none in a piece facts fetch again
      const options = Array.from(field.options);
      const initial = options.find(function (option) {
        return option.defaultSelected;
      });
      return (initial || options[0] || field).value !== field.value;
    }
    return field.type !== "hidden" && field.value !== field.defaultValue;
  }
  function placeOf(field) {
    if (field.id) return { id: field.id };
    const action = field.form && field.form.getAttribute("action");
    return action && field.name ? { action: action, name: field.name } : null;
  }
  function fieldAt(place) {
    if (place.id) return document.getElementById(place.id);
    const form = document.querySelector('form[action="' + CSS.escape(place.action) + '"]');
    const field = form && form.elements.namedItem(place.name);
    return field && field.tagName ? field : null; // not a list of radios
  }
  let kept = { notices: [], open: [], typed: [] };
  document.addEventListener("htmx:beforeSwap", function (event) {
    kept = { notices: [], open: [], typed: [] };
    const config = event.detail.requestConfig;
    const piece = event.detail.target;
    if (!event.detail.shouldSwap || !factsTrigger(config) || !piece) return;
    piece.querySelectorAll("[role=status]").forEach(function (notice) {
      const home = notice.parentElement;
      if (!notice.textContent.trim() || !home || !home.id) return;
      const at = Array.from(home.children).indexOf(notice);
      kept.notices.push({ notice: notice, home: home.id, at: at });
    });
    if (config.elt && config.elt.hasAttribute("hx-include")) return;
    piece.querySelectorAll("details[id][open]").forEach(function (details) {
      kept.open.push(details.id);
    });
    piece.querySelectorAll("input, textarea, select").forEach(function (field) {
      const place = placeOf(field);
      if (!place || !typedInto(field)) return;
      const focused = document.activeElement === field;
      kept.typed.push({
        place: place,
        value: field.value,
        checked: field.checked,
        caret: focused ? [field.selectionStart, field.selectionEnd] : null,
      });
    });
  });
  document.addEventListener("htmx:afterSwap", function () {
    kept.notices.forEach(function (piece) {
      const home = document.getElementById(piece.home);
      if (!home || home.querySelector("[role=status]")) return;
      home.insertBefore(piece.notice, home.children[piece.at] || null);
    });
    kept.open.forEach(function (id) {
      const details = document.getElementById(id);
      if (details) details.open = true;
    });
    kept.typed.forEach(function (was) {
      const field = fieldAt(was.place);
      if (!field) return;
      if (field.type === "checkbox" || field.type === "radio") field.checked = was.checked;
      else field.value = was.value;
      if (!was.caret) return; // it did not have the focus
      field.focus();
      if (was.caret[0] === null) return; // a number field has no caret
      try {
        field.setSelectionRange(was.caret[0], was.caret[1]);
      } catch (error) {
        // a field that takes no selection: the focus is enough
      }
    });
    kept = { notices: [], open: [], typed: [] };
  });

  // A piece marked data-title (the sheet's header) carries the page's title: swapped in again
  // (a rename), it sets it.
  document.addEventListener("htmx:afterSwap", function () {
    const titled = document.querySelector("[data-title]");
    if (titled && titled.dataset.title !== document.title) document.title = titled.dataset.title;
  });

  // The socket's element tells whether it is open (data-socket), for styles and tests.
  let opened = false;
  document.addEventListener("htmx:wsOpen", function (event) {
    event.detail.elt.dataset.socket = "open";
    if (opened) htmx.trigger(document.body, "facts-resync");
    opened = true;
  });
  // Reopening sockets: this file alone decides when. Every socket is made here
  // (htmx.createWebSocket; the room asks for its own address, rollroomSocketUrl in room.js), and
  // the ws extension is shown every close as a plain one (code 1000), so that it schedules no
  // reopening of its own, which nothing could cancel: a "retry now" would then open a second
  // socket beside the one it brings. The close's own event is in the htmx:wsClose event
  // (detail.event.closed).
  //
  // A socket is shown open (htmx:wsOpen) once it has received its first frame, or has stayed
  // open for SETTLED ms: a server with too many sockets connecting accepts a new one and closes
  // it at once with its turn (4601-4900, config/admission.py). Taken for open, that refusal
  // would fetch everything a reconnect fetches (facts-resync, the checks) and count the page's
  // tries from zero again, so that the page would come back within a second, every time.
  const SETTLED = 1000;
  document.addEventListener("DOMContentLoaded", function () {
    htmx.createWebSocket = function (url) {
      const socket = new WebSocket(window.rollroomSocketUrl ? window.rollroomSocketUrl(url) : url);
      socket.binaryType = htmx.config.wsBinaryType;
      let held = null; // the open, until the socket settles
      function settle() {
        if (!held) return;
        const { handler, event, timer } = held;
        held = null;
        clearTimeout(timer);
        handler(event);
      }
      // Before the ws extension's own listener (added after this returns): the open first.
      socket.addEventListener("message", settle);
      Object.defineProperty(socket, "onopen", {
        set: function (handler) {
          socket.addEventListener("open", function (event) {
            held = { handler: handler, event: event, timer: setTimeout(settle, SETTLED) };
          });
        },
      });
      Object.defineProperty(socket, "onclose", {
        set: function (handler) {
          socket.addEventListener("close", function (event) {
            if (held) clearTimeout(held.timer);
            held = null; // closed before it settled: never shown open
            handler({ type: "close", code: 1000, reason: event.reason, closed: event });
          });
        },
      });
      return socket;
    };
  });

  // Which closes reopen the socket: those the ws extension reopens itself (abnormal closure, a
  // server error, a service restart, try again later), a socket the server closed for want of
  // a part (the database or Redis, config/asgi.py's SocketGuard: 4503, as daphne sends no 1013),
  // and one whose server is restarting (config/shutdown.py: 4012, as daphne sends no 1012).
  // A restart is over in seconds: the first try comes within a quarter of a second, then each
  // waits longer, but never more than 2.5 s, so a page is live again within 3 s of its server
  // answering. Past SWIFT tries in a row (about 14 s, longer than a restart takes: 10 s at most,
  // config/shutdown.py) the server is not coming back that soon, or refuses the sockets it
  // cannot take (a 1006 again and again): the waits double on up to 10 s. Without that, each of
  // the thousands of pages of a process that restarted would try again every 2.5 s for as long
  // as the process takes to join them all, each try a handshake more for it (bench/README.md,
  // "The reconnect storm"). An outage lasts longer, and so does a server that asks for it
  // (4503): 1 s after the first 4503, then twice as long after each next one in a row, 10 s at
  // most. Counted from the first 4503, not from the tries before it: a page that tried while
  // its process restarted, then was asked to wait by the process restarted, would otherwise
  // wait 10 s at once, and a process that could take it sooner would sit idle. A server with
  // too many sockets connecting gives the page its turn instead (config/admission.py): closed
  // with TRY_AGAIN_IN + s, the page tries again within the s-th second from now, at a random
  // moment of it, so that the turns of one second do not all come at its start.
  const TRY_AGAIN_LATER = 4503;
  const SERVICE_RESTART = 4012;
  const TRY_AGAIN_IN = 4600;
  const LATEST = 300;
  const REOPENED = [1006, 1011, 1012, 1013, TRY_AGAIN_LATER, SERVICE_RESTART];
  function turn(code) {
    return code > TRY_AGAIN_IN && code <= TRY_AGAIN_IN + LATEST ? code - TRY_AGAIN_IN : 0;
  }
  const SWIFT = 8;
  let retries = 0; // tries since the socket was last open
  let later = 0; // of which the last ones, in a row, closed with 4503
  let pending = null; // the timer of the next try, and the socket it reopens

  function retryButtons(shown) {
    document.querySelectorAll("[data-socket-retry]").forEach(function (button) {
      button.hidden = !shown;
    });
  }

  function reopen() {
    if (!pending) return;
    clearTimeout(pending.timer);
    const { elt, wrapper } = pending;
    pending = null;
    retryButtons(false);
    if (document.body.contains(elt)) wrapper.reconnect(); // a page that dropped it keeps it shut
  }

  document.addEventListener("htmx:wsOpen", function () {
    retries = 0;
    later = 0;
  });
  // A socket whose user's role changed (room/consumers.py RECAST: a GM handed the campaign
  // over): the page is a GM's or a player's, so it loads again as what they are now; a page
  // only a GM may see (the GM panel) names where to go instead (data-recast-to), as loaded
  // again it would be refused.
  const RECAST = 4205;
  document.addEventListener("htmx:wsClose", function (event) {
    event.detail.elt.dataset.socket = "closed";
    const close = event.detail.event && event.detail.event.closed;
    if (close && close.code === RECAST) {
      const elsewhere = event.detail.elt.dataset.recastTo;
      if (elsewhere) window.location.assign(elsewhere);
      else window.location.reload();
      return;
    }
    const seconds = close ? turn(close.code) : 0;
    if (!close || (!seconds && REOPENED.indexOf(close.code) < 0)) return;
    const busy = close.code === TRY_AGAIN_LATER;
    later = busy ? later + 1 : 0;
    const n = busy ? later - 1 : retries;
    const first = busy ? 1000 : 250;
    const most = busy || n >= SWIFT ? 10000 : 2500;
    const wait = seconds
      ? (seconds - 1 + Math.random()) * 1000
      : Math.min(most, first * 2 ** n) * (0.5 + Math.random() / 2);
    retries += 1;
    if (pending) clearTimeout(pending.timer);
    pending = { elt: event.detail.elt, wrapper: event.detail.socketWrapper };
    pending.timer = setTimeout(reopen, wait);
    retryButtons(true);
  });
  // "Retry now" (the room's, beside its connection): the next try at once.
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-socket-retry]")) reopen();
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

  // site.js runs in <head> (base.html): the form is there once the document is parsed.
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form[data-system-switch]").forEach(show);
  });
  document.addEventListener("change", function (event) {
    const form = event.target.closest && event.target.closest("form[data-system-switch]");
    if (form && event.target.name === "system") show(form);
  });
})();

// Fair dice (issue #31, rolls/dice.py): every htmx post carries a fresh random contribution, 16
// bytes from the browser's own secure source, which the server cannot know before it arrives; a
// roll's dice are drawn from the campaign's committed seed with it and the roll's number. A post
// that rolls nothing ignores it. A plain form (no script) sends none: the server makes one, and
// the roll's entry says so.
(function () {
  "use strict";

  function contribution() {
    const bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  document.addEventListener("htmx:configRequest", function (event) {
    if (event.detail.verb !== "post" || !window.crypto || !window.crypto.getRandomValues) return;
    event.detail.parameters.contribution = contribution();
  });
})();

// Confirmations, one way everywhere (issue #43): a form marked data-confirm="<question>" asks
// below itself before it is sent, "<question> [Yes] [Keep]", the focus on Yes; Keep or Escape
// (data-escape-keeps, above) takes the question away and gives the focus back to the button
// pressed. A form marked data-confirm-live="<question>" (ending a session) asks only while checks
// are live in the room's #checks, saying how many. Never the browser's confirm(): a modal that
// blocks the page (and every push to it) and that some browsers suppress.
(function () {
  "use strict";

  function questionOf(form) {
    if (form.dataset.confirm) return form.dataset.confirm;
    if (form.dataset.confirmLive === undefined) return "";
    const live = document.querySelectorAll("#checks article.check:not(.done)").length;
    if (!live) return "";
    return (live === 1 ? "1 check is" : live + " checks are") + " still open. " + form.dataset.confirmLive;
  }

  function button(text, className) {
    const el = document.createElement("button");
    el.type = "button";
    el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  function ask(form, question, submitter) {
    const old = form.nextElementSibling;
    if (old && old.matches("[data-confirm-box]")) old.remove();
    const box = document.createElement("div");
    box.className = "confirm-box";
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Confirm");
    box.dataset.confirmBox = "";
    box.dataset.escapeKeeps = "";
    const said = document.createElement("p");
    said.textContent = question;
    const yes = button(form.dataset.confirmYes || "Yes", "");
    yes.dataset.confirmYes = "";
    const keep = button("Keep", "secondary");
    keep.dataset.keep = "";
    box.append(said, yes, " ", keep);
    const back = submitter || form.querySelector("button, [type=submit]");
    yes.addEventListener("click", function () {
      box.remove();
      form.dataset.confirmed = "yes";
      form.requestSubmit(submitter && submitter.form === form ? submitter : undefined);
    });
    keep.addEventListener("click", function () {
      box.remove();
      if (back) back.focus();
    });
    form.after(box);
    yes.focus();
  }

  // Capturing on the document: the question comes before htmx's own listener on the form sends it.
  document.addEventListener(
    "submit",
    function (event) {
      const form = event.target;
      if (!(form instanceof HTMLFormElement)) return;
      if (form.dataset.confirmed === "yes") {
        delete form.dataset.confirmed;
        return;
      }
      const question = questionOf(form);
      if (!question) return;
      event.preventDefault();
      event.stopPropagation();
      ask(form, question, event.submitter);
    },
    true
  );
})();

// User-typed text said in plain text (an alert, the tab's title, a live region): each <bdi> of
// the element (core/templatetags/text.py) kept isolated as "FSI text PDI", so that a direction
// mark typed into a message turns only the message around in what is said, not what follows.
window.rollroomText = Object.freeze({
  isolated: function (el) {
    let text = "";
    el.childNodes.forEach(function (node) {
      if (node.nodeType === Node.TEXT_NODE) text += node.textContent;
      else if (node.nodeType !== Node.ELEMENT_NODE) return;
      else if (node.localName === "bdi") {
        text += "\u2068" + node.textContent.replace(/[\u2066-\u2069]/g, "") + "\u2069";
      } else text += window.rollroomText.isolated(node);
    });
    return text;
  },
});
