// The room: resume the socket where the log ends, show the connection, follow the log.
(function () {
  "use strict";

  function log() {
    return document.getElementById("log");
  }

  // The highest entry this page shows: where a (re)connected socket resumes.
  function lastSeq() {
    const el = log();
    let last = el ? Number(el.dataset.lastSeq) || 0 : 0;
    if (el) {
      el.querySelectorAll("[data-seq]").forEach(function (entry) {
        last = Math.max(last, Number(entry.dataset.seq) || 0);
      });
    }
    return last;
  }

  // The ws extension calls htmx.createWebSocket(url) at every (re)connect with the URL the
  // page was rendered with; ask instead for what came after the last entry shown now.
  htmx.createWebSocket = function (url) {
    const socket = new WebSocket(url.replace(/([?&]after=)\d*/, "$1" + lastSeq()));
    socket.binaryType = htmx.config.wsBinaryType;
    return socket;
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

  document.addEventListener("htmx:wsOpen", function () {
    setStatus("connected", "ok");
    // Check fragments carry no sequence number: fetch the live checks again in case one
    // changed while the socket was away.
    htmx.trigger("#checks", "resync");
  });
  // A frame whose entry is not the next one after the page's last leaves a gap (the server
  // fills the gaps it sees; this catches any other loss). The frame is dropped and the socket
  // reopened: the server replays from the last entry shown, so each entry arrives once and in
  // order. Once per gap: should the same gap come back, the frame is shown as it is.
  const ENTRY_SEQ = /data-seq="(\d+)"/;
  let resyncedAfter = null;
  let resyncing = false;

  function gapBefore(message) {
    const match = typeof message === "string" ? ENTRY_SEQ.exec(message) : null;
    if (!match) return false;
    const last = lastSeq();
    return Number(match[1]) > last + 1 && resyncedAfter !== last;
  }

  document.addEventListener("htmx:wsClose", function () {
    if (resyncing) {
      resyncing = false; // the socket closed on purpose for a resync: another is opening
      return;
    }
    setStatus("reconnecting…", "bad");
  });
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (gapBefore(event.detail.message)) {
      event.preventDefault();
      resyncedAfter = lastSeq();
      resyncing = true;
      event.detail.socketWrapper.reconnect();
      return;
    }
    const el = log();
    follow = !el || el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (follow) scrollDown();
  });

  scrollDown();
})();

// Being asked: the checks asked of this player (cards marked data-asks-me, rolls/cards.py)
// are counted in the tab title, "(1) Room · …", as pushes and resyncs bring cards in and out;
// a new one plays a short chime when the player opted in (the checkbox, kept in localStorage).
(function () {
  "use strict";

  const SOUND_KEY = "rollroom.askSound";
  const BADGE = /^\(\d+\) /;
  const baseTitle = document.title.replace(BADGE, "");
  let asked = null; // the count shown; null until the page's own is read
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

  function recount() {
    const checks = document.getElementById("checks");
    if (!checks) return;
    const count = checks.querySelectorAll("[data-asks-me]").length;
    document.title = (count ? "(" + count + ") " : "") + baseTitle;
    if (asked !== null && count > asked && soundWanted()) chime();
    asked = count;
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
  document.addEventListener("htmx:afterSettle", recount);
  recount();
})();
