// The room: resume the socket where the log ends, show the connection, follow the log.
(function () {
  "use strict";

  function log() {
    return document.getElementById("log");
  }

  // An element's text with its user-typed parts kept isolated (static/js/site.js).
  function isolated(el) {
    return window.rollroomText.isolated(el);
  }

  // The log's entries (its children marked data-seq) as they come, kept track of without
  // walking the whole log at every frame: a page left open through an evening holds every
  // entry of it, and walking them all (several times a frame) would make every frame cost in
  // proportion to the evening so far. An observer of the log's children notes each entry
  // added, by a frame (at the end) or by "Load older entries" (at the start).
  let highest = 0; // the highest number the log shows (its data-last-seq at least)
  let added = []; // the entries added since the last call to watch(true)
  let watched = null; // the #log observed

  function note(records) {
    records.forEach(function (record) {
      record.addedNodes.forEach(function (node) {
        if (node.nodeType !== Node.ELEMENT_NODE || !node.dataset.seq) return;
        highest = Math.max(highest, Number(node.dataset.seq) || 0);
        added.push(node);
      });
    });
  }
  const observer = new MutationObserver(note);

  // The log, with what was added to it noted; ``restart``: the entries added are counted anew
  // from here. The first call (or a new #log) reads the log once.
  function watch(restart) {
    const el = log();
    if (el !== watched) {
      observer.disconnect();
      watched = el;
      highest = el ? Number(el.dataset.lastSeq) || 0 : 0;
      if (el) {
        el.querySelectorAll("[data-seq]").forEach(function (entry) {
          highest = Math.max(highest, Number(entry.dataset.seq) || 0);
        });
        observer.observe(el, { childList: true });
      }
    } else {
      note(observer.takeRecords());
    }
    if (restart) added = [];
    return el;
  }

  // The log's last entry, or null.
  function lastEntry() {
    const el = log();
    let entry = el ? el.lastElementChild : null;
    while (entry && !entry.hasAttribute("data-seq")) entry = entry.previousElementSibling;
    return entry;
  }

  // The highest number this page shows: where a (re)connected socket resumes. A whisper
  // takes no number (it carries the one before it, data-whisper): the whispers after that
  // number come again, and are dropped below as entries the page has.
  function lastSeq() {
    watch(false);
    return highest;
  }

  // Each (re)connect opens the URL the page was rendered with (static/js/site.js makes the
  // socket); ask instead for what came after the last entry shown now.
  window.rollroomSocketUrl = function (url) {
    return url.replace(/([?&]after=)\d*/, "$1" + lastSeq());
  };

  function setStatus(text, state) {
    const el = document.getElementById("ws-status");
    if (el) {
      el.textContent = text;
      el.dataset.state = state;
    }
  }

  function scrollDown() {
    const el = log();
    if (el) el.scrollTop = el.scrollHeight;
  }

  let follow = true; // keep the log at its end unless the reader scrolled up
  let flashed = null; // the entry marked as the newest (.arrived)

  // What a screen reader hears of an entry: who rolled what and the outcome (not the dice
  // one by one, nor the commitment); other entries say their first line.
  function summary(entry) {
    const parts = [entry.querySelector("header"), entry.querySelector(".outcome")].filter(Boolean);
    const text = parts.length
      ? parts.map(isolated).join(". ")
      : isolated(entry);
    return text.replace(/\s+/g, " ").trim();
  }

  // New entries: the newest is marked (rollroom.css flashes it unless the reader asked for
  // less motion), and the polite live region #log-news says them, once each; the log itself is
  // not live, so nothing already there is read again.
  function arrived() {
    if (!watch(false)) return;
    // The entries this frame added (watch(true) when it came): a frame only ever adds entries
    // at the end of the log.
    const fresh = added.filter(function (entry) {
      return entry.isConnected;
    });
    added = [];
    if (!fresh.length) return;
    if (flashed) flashed.classList.remove("arrived");
    flashed = fresh[fresh.length - 1];
    flashed.classList.add("arrived");
    const news = document.getElementById("log-news");
    if (!news) return;
    const said = fresh.slice(-3).map(summary);
    if (fresh.length > 3) said.unshift(fresh.length + " new entries; the last three:");
    news.textContent = said.join(" · ");
  }

  document.addEventListener("htmx:wsOpen", function () {
    setStatus("connected", "ok");
    // Check fragments carry no sequence number: fetch the live checks again in case one
    // changed while the socket was away.
    htmx.trigger("#checks", "resync");
  });
  // A frame whose entry is not the next one after the page's last leaves a gap (the server
  // fills the gaps it sees; this catches any other loss). The frame is dropped and the socket
  // reopened: the server replays from the last entry shown, so each entry arrives once and in
  // order. Once per gap: should the same gap come back, the frame is shown as it is. Numbers
  // follow one another for every page: a whisper takes none (it carries the number before it),
  // so a whisper between two players is no gap for the others, who never learn of it. A frame
  // whose entry the page has already (a whisper replayed after its number) is dropped.
  const ENTRY = /<article id="([^"]+)"[^>]* data-seq="(\d+)"([^>]* data-whisper)?/;
  let resyncedAfter = null;
  let resyncing = false;

  function entryIn(message) {
    return typeof message === "string" ? ENTRY.exec(message) : null;
  }

  // Whether the entry a frame carries (ENTRY's match, or null) leaves a gap before it.
  function gapBefore(match) {
    if (!match) return false;
    const last = lastSeq();
    // The number the page must have before this entry: its own for a whisper, else the one
    // before it.
    const before = match[3] ? Number(match[2]) : Number(match[2]) - 1;
    return before > last && resyncedAfter !== last;
  }

  document.addEventListener("htmx:wsClose", function () {
    if (resyncing) {
      resyncing = false; // the socket closed on purpose for a resync: another is opening
      return;
    }
    setStatus("reconnecting…", "bad");
  });
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    const match = entryIn(event.detail.message);
    if (match && document.getElementById(match[1])) {
      event.preventDefault(); // an entry the page has already
      return;
    }
    if (gapBefore(match)) {
      event.preventDefault();
      resyncedAfter = lastSeq();
      resyncing = true;
      event.detail.socketWrapper.reconnect();
      return;
    }
    const el = watch(true);
    follow = !el || el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    arrived();
    if (follow) scrollDown();
  });

  // The keyboard stays where it was when a swap (htmx's or the socket's) replaces the control
  // that had the focus: on the control with the same id in the new content, else on what the
  // new card says happened ([data-result]), else on the card. The player who rolled (or the GM
  // who answered) hears the result: it is announced in #announce (aria-live).
  let focused = null; // the control that last had the focus, and the card or section around it
  let awaiting = null; // the card whose form this page just sent, until it is replaced

  function homeOf(el) {
    const parent = el.parentElement;
    return parent ? parent.closest("[id]") : null;
  }

  document.addEventListener("focusin", function (event) {
    const home = homeOf(event.target);
    focused = { el: event.target, id: event.target.id, home: home ? home.id : "" };
  });

  function announce(el, text) {
    const region = document.getElementById("announce");
    if (!region || !el) return;
    region.textContent = "";
    // A new text node after a tick, so that the same result twice is heard twice.
    setTimeout(function () {
      region.textContent = text || isolated(el).replace(/\s+/g, " ").trim();
    }, 50);
  }

  function focusOn(el) {
    if (!el) return;
    if (!el.hasAttribute("tabindex") && !el.matches("a, button, input, select, textarea")) {
      el.setAttribute("tabindex", "-1");
    }
    el.focus({ preventScroll: false });
  }

  function lost() {
    const active = document.activeElement;
    return !active || active === document.body || (focused && !focused.el.isConnected);
  }

  function restoreFocus() {
    if (awaiting) {
      if (awaiting.isConnected) return; // the answer has not come yet
      const card = document.getElementById(awaiting.id);
      awaiting = null;
      if (!card) {
        // The roll closed the check: its card left the live checks, and the roll's log entry
        // (pushed before the card) is the result, focused and announced.
        const entry = lastEntry();
        if (entry && lost()) focusOn(entry);
        if (entry) announce(entry, summary(entry));
        return;
      }
      const result = card.querySelector("[data-result]");
      if (result && !card.querySelector("form.roll")) {
        // Rolled (or put to the GM, or answered): the result, focused and announced.
        if (lost()) focusOn(result);
        announce(result);
        return;
      }
    }
    if (!focused || !lost()) return;
    const same = focused.id ? document.getElementById(focused.id) : null;
    if (same && !same.disabled) {
      focusOn(same);
      return;
    }
    const home = focused.home ? document.getElementById(focused.home) : null;
    if (!home) return;
    const said = home.querySelector("[data-result]");
    focusOn(said || home);
    if (said) announce(said); // what changed where the keyboard was (a shift declined, ...)
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    const elt = event.detail.elt;
    const card = elt && elt.tagName === "FORM" ? elt.closest(".check") : null;
    if (card) awaiting = card;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    // Refused (422): the card comes back with the reason, in place: no result to wait for.
    // (Only the form's own answer tells: the odds are asked for meanwhile, and answered.)
    const xhr = event.detail.xhr;
    const elt = event.detail.elt;
    if (!awaiting || !xhr || xhr.status === 204 || !elt || elt.tagName !== "FORM") return;
    if (elt.closest(".check") === awaiting) awaiting = null;
  });
  document.addEventListener("htmx:afterSettle", restoreFocus);
  document.addEventListener("htmx:wsAfterMessage", restoreFocus);

  // The roll button says what it does: with dice shifted (a system's inputs marked
  // data-shifts), it says its data-shift-label (Pool: it proposes the shift to the GM).
  document.addEventListener("input", function (event) {
    const form = event.target.closest ? event.target.closest("form.roll") : null;
    const button = form ? form.querySelector("button[data-shift-label]") : null;
    if (!button) return;
    const shifted = Array.prototype.some.call(
      form.querySelectorAll("input[data-shifts]"),
      function (input) {
        return Number(input.value) > 0;
      },
    );
    button.textContent = shifted ? button.dataset.shiftLabel : button.dataset.rollLabel;
  });

  // The Mana advisor's rows: one click puts that spend in the roll form (its inputs, by name:
  // data-spend_a, data-spend_b, data-colorless), and the form's odds follow as when typed.
  document.addEventListener("click", function (event) {
    const use = event.target.closest ? event.target.closest("[data-use-spend]") : null;
    const form = use ? use.closest("form") : null;
    if (!form) return;
    ["spend_a", "spend_b", "colorless"].forEach(function (name) {
      const input = form.querySelector('input[name="' + name + '"]');
      if (input && use.dataset[name] !== undefined) input.value = use.dataset[name];
    });
    const first = form.querySelector('input[name="spend_a"]');
    if (first) {
      first.dispatchEvent(new Event("change", { bubbles: true }));
      first.focus();
    }
  });

  // The talk box's preview asks the server only about dice (/r, /gr, /sr and their long
  // names): a message or a whisper never leaves the page before it is sent, not even as a
  // query in a server's access log.
  const ROLL_COMMAND = /^\s*\/(r|roll|gr|gmroll|sr|secretroll)(\s|$)/i;
  document.addEventListener("htmx:beforeRequest", function (event) {
    const elt = event.detail.elt;
    if (!elt || elt.id !== "talk-text" || ROLL_COMMAND.test(elt.value)) return;
    event.preventDefault();
    const odds = document.getElementById("talk-odds");
    if (odds) odds.textContent = "";
  });

  // The talk box keeps Discord's habit: in the empty box, the up arrow brings back what was
  // sent last (to fix a typo in a roll, or say it again).
  let lastSaid = "";
  document.addEventListener("htmx:beforeRequest", function (event) {
    const elt = event.detail.elt;
    if (!elt || !elt.matches || !elt.matches("form.talk-form")) return;
    const box = elt.querySelector("#talk-text");
    if (box) lastSaid = box.value;
  });
  document.addEventListener("keydown", function (event) {
    const box = event.target;
    if (event.key !== "ArrowUp" || !box || box.id !== "talk-text" || box.value) return;
    if (!lastSaid) return;
    event.preventDefault();
    box.value = lastSaid;
  });

  scrollDown();
})();

// Being asked: the checks asked of this player (cards marked data-asks-me, room/push.py)
// are counted in the tab title, "(1) Room · …", as pushes and resyncs bring cards in and out;
// a new one plays a short chime when the player opted in (the checkbox, kept in localStorage).
// So is the player's turn in the initiative order (its card marked data-my-turn,
// scene/initiative.py): "Your turn · Room · …", with the chime when it comes.
(function () {
  "use strict";

  const SOUND_KEY = "rollroom.askSound";
  const BADGE = /^(\(\d+\) )?(✉\d+ )?(Your turn · )?/;
  const TURN = "Your turn · ";
  const baseTitle = document.title.replace(BADGE, "");
  let asked = null; // the count shown; null until the page's own is read
  let myTurn = null; // whether the title says it is this player's turn; null until read
  let audio = null;
  let wanted = false;
  try {
    wanted = window.localStorage.getItem(SOUND_KEY) === "on";
  } catch (error) {
    // storage refused (private mode): no sound until the player ticks the box
  }

  function soundWanted() {
    return wanted;
  }

  // Browsers start audio only after a gesture on the page: the checkbox, or any click later.
  function wakeAudio() {
    if (!soundWanted() || !window.AudioContext) return;
    if (!audio) audio = new window.AudioContext();
    if (audio.state === "suspended") audio.resume();
  }

  function chime() {
    wakeAudio();
    if (!audio || audio.state !== "running") return;
    const start = audio.currentTime;
    [660, 880].forEach(function (frequency, index) {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      const at = start + index * 0.15;
      tone.frequency.value = frequency;
      volume.gain.setValueAtTime(0.001, at);
      volume.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
      volume.gain.exponentialRampToValueAtTime(0.001, at + 0.14);
      tone.connect(volume).connect(audio.destination);
      tone.start(at);
      tone.stop(at + 0.15);
    });
  }

  // Called: a whisper to this member, or a message naming them (@name): entries marked
  // data-to with their id (rolls/_log_entry.html), from someone else. Each new one is said in
  // #talk-alert and counted in the tab title, "✉1 Room · …", until the member comes back to
  // the page (a key, a click, the tab shown again).
  const room = document.getElementById("room");
  const me = room ? room.dataset.me : "";
  let calls = 0;
  let seenLast = null; // the last entry looked at for calls (older ones loaded later are not new)

  function callsIn() {
    const log = document.getElementById("log");
    if (!log || !me) return [];
    // New entries only ever come at the end of the log; older ones are put before. Those after
    // the last one looked at, found from it (not by walking the whole log at every frame).
    const fresh = [];
    let entry = log.firstElementChild; // the page's first look (or a log put in anew): all
    if (seenLast && seenLast.parentNode === log) entry = seenLast.nextElementSibling;
    for (; entry; entry = entry.nextElementSibling) {
      if (entry.hasAttribute("data-seq")) fresh.push(entry);
    }
    if (fresh.length) seenLast = fresh[fresh.length - 1];
    return fresh.filter(function (entry) {
      const to = (entry.dataset.to || "").split(" ");
      return to.indexOf(me) !== -1 && entry.dataset.from !== me;
    });
  }

  function title(count, turn) {
    const badges = (count ? "(" + count + ") " : "") + (calls ? "✉" + calls + " " : "");
    return badges + (turn ? TURN : "") + baseTitle;
  }

  function called() {
    const fresh = callsIn();
    if (!fresh.length) return;
    calls += fresh.length;
    fresh.forEach(function (entry) {
      entry.classList.add("called");
    });
    const alert = document.getElementById("talk-alert");
    const last = fresh[fresh.length - 1];
    if (alert) {
      const what = last.hasAttribute("data-whisper") ? "Whisper: " : "You were called: ";
      alert.textContent = what + window.rollroomText.isolated(last).replace(/\s+/g, " ").trim();
      alert.hidden = false;
    }
    if (soundWanted()) chime();
    recount();
  }

  function back() {
    if (!calls) return;
    calls = 0;
    recount();
  }

  function recount() {
    const checks = document.getElementById("checks");
    const count = checks ? checks.querySelectorAll("[data-asks-me]").length : 0;
    const turn = Boolean(document.querySelector("#initiative [data-my-turn]"));
    document.title = title(count, turn);
    const newTurn = myTurn === false && turn;
    const moreAsked = checks && asked !== null && count > asked;
    if ((moreAsked || newTurn) && soundWanted()) chime();
    if (checks) asked = count;
    myTurn = turn;
  }

  const toggle = document.getElementById("ask-sound");
  if (toggle) {
    toggle.checked = soundWanted();
    toggle.addEventListener("change", function () {
      wanted = toggle.checked;
      try {
        window.localStorage.setItem(SOUND_KEY, toggle.checked ? "on" : "off");
      } catch (error) {
        // storage refused (private mode): the choice lasts as long as the page
      }
      wakeAudio();
    });
  }
  document.addEventListener("pointerdown", wakeAudio, { once: true });
  document.addEventListener("keydown", wakeAudio, { once: true });
  document.addEventListener("htmx:wsAfterMessage", recount);
  document.addEventListener("htmx:wsAfterMessage", called);
  document.addEventListener("htmx:afterSettle", recount);
  document.addEventListener("keydown", back);
  document.addEventListener("pointerdown", back);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") back();
  });
  callsIn(); // what the page showed when it loaded was seen
  recount();
})();
