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
  let seqBefore = 0; // the last entry shown before a frame was swapped in

  // What a screen reader hears of an entry: who rolled what and the outcome (not the dice
  // one by one, nor the commitment); other entries say their first line.
  function summary(entry) {
    const parts = [entry.querySelector("header"), entry.querySelector(".outcome")].filter(Boolean);
    const text = parts.length
      ? parts.map(function (el) { return el.textContent; }).join(". ")
      : entry.textContent;
    return text.replace(/\s+/g, " ").trim();
  }

  // New entries: the newest is marked (rollroom.css flashes it unless the reader asked for
  // less motion), and the polite live region #log-news says them, once each; the log itself is
  // not live, so nothing already there is read again.
  function arrived() {
    const el = log();
    if (!el) return;
    const fresh = Array.from(el.querySelectorAll("[data-seq]")).filter(function (entry) {
      return Number(entry.dataset.seq) > seqBefore;
    });
    if (!fresh.length) return;
    el.querySelectorAll(".entry.arrived").forEach(function (entry) {
      entry.classList.remove("arrived");
    });
    fresh[fresh.length - 1].classList.add("arrived");
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
    seqBefore = lastSeq();
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    arrived();
    if (follow) scrollDown();
  });

  scrollDown();
})();
