"""The time to every screen (``python manage.py bench_screens``): pages of one room in Chromium,
one member talking and rolling at a steady pace, each event timed from its Enter or click to its
entry on every other page, and where the time went. See bench/README.md.

Every page runs ``WATCH`` before its own scripts: it stamps, on one clock for all pages
(``performance.timeOrigin + performance.now()``, milliseconds since the epoch), the sender's
Enter in the talk box and click on a roll button, its POSTs (sent, answered), and on each page
every frame of the room's socket (htmx:wsBeforeMessage), the end of its swap (the first
htmx:wsAfterMessage listener, before the page's own), the entry in the log (a MutationObserver,
after the page's own listeners ran), the next frame painted (an animation frame, then a task
after it: the page's main thread done with that frame) and the frame presented (Element Timing's
renderTime for the entry's text: the compositor's frame shown). A plain websocket client of the
room, in this process, stamps the same frames as the reference for the server and the socket
without a browser. Each stamp is also a performance mark (bench-frame, bench-swapped, bench-dom,
bench-raf, bench-paint), which ``--trace`` records beside Chromium's own events."""

import asyncio
import json
import os
import re
import time

from websockets.asyncio.client import connect

from .server import cpu_seconds
from .stats import percentile

#: Chromium as the browser tests run it: Debian's, never one playwright downloads.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
#: What an entry's frame carries (static/js/room.js reads it the same way).
ENTRY = re.compile(r'<article id="([^"]+)" class="entry ([\w-]+)[^"]*"[^>]* data-seq="(\d+)"')
#: The kinds of events, in turn: a line of talk, a free roll through the talk box, a check's
#: roll button; and the class of the log entry each one makes.
KINDS = ("talk", "free_roll", "talk", "check")
ENTRY_CLASS = {"talk": "message", "free_roll": "free_roll", "check": "roll"}
#: How long before its Enter an event's line is typed: the preview a roll's text asks for
#: (the talk box's, 300 ms after typing) is answered before the Enter, as for a player who
#: types and then sends.
TYPED_BEFORE = 0.6
TIMEOUT_MS = 15_000
#: Seconds the pages are given, once all are open, to fetch what they fetch on opening.
SETTLE_SECONDS = 2.0

#: What ``--trace`` records: the renderers' tasks, style, layout, paint and frames, and the marks.
TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "blink.user_timing",
    "toplevel",
]

#: ``--history``: older lines of talk put at the start of each page's log before the events, as a
#: page left open through an evening holds every entry since it opened. Numbered 0 (below any
#: real one) and marked data-history, so that the bench's own observer leaves them out.
HISTORY = """
(n) => {
  const log = document.getElementById("log");
  const html = [];
  for (let k = 0; k < n; k++) {
    html.push(
      '<article id="history-' + k + '" class="entry message" data-seq="0" data-history>' +
      '<p class="talk"><b><bdi>bench</bdi></b>: <span class="said"><bdi>an older line of talk, ' +
      'number ' + k + ', long enough to wrap on a narrow log</bdi></span> ' +
      '<time class="muted">17:00</time></p></article>'
    );
  }
  log.insertAdjacentHTML("afterbegin", html.join(""));
  log.scrollTop = log.scrollHeight;
}
"""

WATCH = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  const bench = { sent: [], posts: [], frames: [], entries: [], shown: {} };
  window.rollroomBench = bench;
  const ENTRY = /<article id="([^"]+)"[^>]* data-seq="(\\d+)"/;
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target && event.target.id === "talk-text") {
      bench.sent.push({ at: now(), how: "enter" });
    }
  }, true);
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("form.roll button");
    if (button) bench.sent.push({ at: now(), how: "click" });
  }, true);
  // The answer is heard on the request itself, not through htmx's events on the form: a check's
  // roll form is inside the check's card, which the socket's push may replace before the
  // answer comes, and htmx's events on a form no longer in the page never reach the document
  // (the event would be lost and the POST unmatched).
  document.addEventListener("htmx:beforeSend", (event) => {
    const config = event.detail.requestConfig;
    const xhr = event.detail.xhr;
    if (!config || config.verb !== "post" || !xhr) return;
    const post = { sent: now(), path: config.path };
    xhr.addEventListener("readystatechange", () => {
      if (xhr.readyState === 4) bench.posts.push({ ...post, answered: now(), status: xhr.status });
    });
  }, true);
  let frame = null;
  document.addEventListener("htmx:wsBeforeMessage", (event) => {
    const message = String(event.detail.message);
    const match = ENTRY.exec(message);
    frame = { before: now(), seq: match ? Number(match[2]) : null, bytes: message.length };
    performance.mark("bench-frame");
    bench.frames.push(frame);
  }, true);
  document.addEventListener("htmx:wsAfterMessage", () => {
    if (frame) frame.after = now();
    performance.mark("bench-swapped");
  }, true);
  const seen = (entries) => {
    const at = now();
    performance.mark("bench-dom");
    entries.forEach((entry) => {
      // Element Timing reports the first frame presented with the entry's text in it.
      const name = "seq-" + entry.dataset.seq;
      [entry, ...entry.querySelectorAll("*")].forEach((el) => {
        el.setAttribute("elementtiming", name);
      });
      const record = {
        seq: Number(entry.dataset.seq),
        cls: entry.className,
        text: entry.textContent.slice(0, 200),
        dom: at,
        frame: frame && frame.seq === Number(entry.dataset.seq) ? frame : null,
      };
      bench.entries.push(record);
      requestAnimationFrame(() => {
        record.raf = now();
        performance.mark("bench-raf");
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          record.paint = now();
          performance.mark("bench-paint");
        };
        channel.port2.postMessage(null);
      });
    });
  };
  new PerformanceObserver((list) => {
    list.getEntries().forEach((e) => {
      const seq = Number(String(e.identifier).slice(4));
      const at = performance.timeOrigin + e.renderTime;
      if (e.renderTime && !(bench.shown[seq] <= at)) bench.shown[seq] = at;
    });
  }).observe({ type: "element", buffered: true });
  const observe = () => {
    const log = document.getElementById("log");
    if (!log) return;
    new MutationObserver((records) => {
      const added = [];
      records.forEach((r) => r.addedNodes.forEach((node) => {
        const entry = node.nodeType === 1 && node.dataset && node.dataset.seq;
        if (entry && !("history" in node.dataset)) added.push(node);
      }));
      if (added.length) seen(added);
    }).observe(log, { childList: true });
  };
  document.addEventListener("DOMContentLoaded", observe);
})();
"""

#: What a page hands back: its records, frames reduced to their times.
COLLECT = """
() => {
  const b = window.rollroomBench;
  const frame = (f) => f && { before: f.before, after: f.after, seq: f.seq, bytes: f.bytes };
  return {
    sent: b.sent,
    posts: b.posts,
    entries: b.entries.map((e) => ({ ...e, frame: frame(e.frame), shown: b.shown[e.seq] })),
  };
}
"""


def descendants(pid):
    """The processes started, directly or not, by ``pid`` (the browser's, from this one)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def browser_cpu():
    """CPU seconds of the browser's processes so far (those still running)."""
    return sum(filter(None, map(cpu_seconds, descendants(os.getpid()))))


def now_ms():
    """Milliseconds since the epoch: the pages' clock (their timeOrigin + now())."""
    return time.time() * 1000


class Reference:
    """A plain websocket client of the room: when each entry's frame reached it."""

    def __init__(self, websocket):
        self.ws = websocket
        self.arrived = {}
        self.task = asyncio.create_task(self._listen())

    async def _listen(self):
        async for text in self.ws:
            at = now_ms()
            for match in ENTRY.finditer(text):
                self.arrived.setdefault(int(match.group(3)), at)

    async def close(self):
        await self.ws.close()
        self.task.cancel()


def plan(events, warmups, rate):
    """The events: (kind, index, warm-up or not, seconds after the start when sent)."""
    out = []
    for n in range(warmups + events):
        kind = KINDS[n % len(KINDS)]
        out.append({"n": n, "kind": kind, "warmup": n < warmups, "at": n / rate})
    return out


async def run(
    *,
    origin,
    campaign_id,
    members,
    sender,
    checks,
    events,
    warmups,
    rate,
    grace,
    idle_seconds,
    reduced_motion=False,
    history=0,
    trace=None,
):
    """Open a page per member (``members``: [(name, session key)], the ``sender``'s index among
    them), leave them alone ``idle_seconds`` (the browser's CPU measured), then send the events at
    ``rate`` per second; ``checks``: the ids of the open checks the sender rolls, in turn.
    ``history``: older entries put in each page's log first (``HISTORY``); ``trace``: a file for
    Chromium's trace of the events' phase. Returns the raw records of every page and the
    reference client."""
    from playwright.async_api import async_playwright

    room = f"{origin}/campaigns/{campaign_id}/room/"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            pages = []
            for name, key in members:
                context = await browser.new_context(
                    reduced_motion="reduce" if reduced_motion else "no-preference"
                )
                await context.add_cookies([{"name": "sessionid", "value": key, "url": origin}])
                await context.add_init_script(WATCH)
                page = await context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                errors = []
                page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
                await page.goto(room)
                await page.wait_for_selector('#ws-status[data-state="ok"]')
                pages.append((name, page, errors))
            host = origin.split("://", 1)[1]
            reference = Reference(
                await connect(
                    f"ws://{host}/ws/campaigns/{campaign_id}/?after=0",
                    origin=origin,
                    additional_headers={"Cookie": f"sessionid={members[0][1]}"},
                    compression=None,
                    max_size=None,
                )
            )
            try:
                await asyncio.sleep(SETTLE_SECONDS)  # the checks' fetch on opening, presence
                for _, page, _ in pages if history else []:
                    await page.evaluate(HISTORY, history)
                # The pages left alone: what their timers and animations cost between events.
                idle = browser_cpu(), time.monotonic()
                await asyncio.sleep(idle_seconds)
                idle_pct = cpu_percent(idle)
                if trace:
                    await browser.start_tracing(path=trace, categories=TRACE_CATEGORIES)
                busy = browser_cpu(), time.monotonic()
                sent = await send_all(pages[sender][1], plan(events, warmups, rate), checks, rate)
                busy_pct = cpu_percent(busy)
                await wait_all(pages, reference, len(sent), grace, sender=pages[sender][1])
                if trace:
                    await browser.stop_tracing()
                records = [await page.evaluate(COLLECT) for _, page, _ in pages]
            finally:
                await reference.close()
            return {
                "names": [name for name, _, _ in pages],
                "records": records,
                "errors": [errors for _, _, errors in pages],
                "reference": reference.arrived,
                "plan": sent,
                "browser_cpu_idle_pct": idle_pct,
                "browser_cpu_pct": busy_pct,
            }
        finally:
            await browser.close()


def cpu_percent(since):
    """The browser's CPU since ``since`` (its CPU seconds, a monotonic time), in % of a core."""
    cpu, at = since
    return round(100 * (browser_cpu() - cpu) / max(1e-6, time.monotonic() - at), 1)


async def send_all(page, events, checks, rate):
    """Send ``events`` from ``page`` at their times: a line typed ``TYPED_BEFORE`` seconds
    early, its Enter pressed on time; a check's roll button clicked on time."""
    loop = asyncio.get_running_loop()
    start = loop.time() + TYPED_BEFORE + 0.1
    checks = iter(checks)
    for event in events:
        at = start + event["at"]
        if event["kind"] == "check":
            selector = f"#roll-{next(checks)}-submit"
            await page.wait_for_selector(selector)
        else:
            # Typed once the previous event was sent, at the latest TYPED_BEFORE before its own.
            await asyncio.sleep(max(0.0, at - min(TYPED_BEFORE, 0.5 / rate) - loop.time()))
            text = f"bench#{event['n']} the door is open" if event["kind"] == "talk" else "/r 2d6"
            await page.fill("#talk-text", text)
        event["lag_ms"] = round(max(0.0, loop.time() - at) * 1000, 3)
        await asyncio.sleep(max(0.0, at - loop.time()))
        if event["kind"] == "check":
            await page.click(selector)
        else:
            await page.press("#talk-text", "Enter")
    return events


async def wait_all(pages, reference, count, grace, *, sender):
    """Wait until every page and the reference client saw ``count`` entries past the warm-up's
    start, and the ``sender`` page its ``count`` POSTs answered (its answers come after the
    others' frames: read before them, the last events would have none), or ``grace`` seconds
    past the last event."""
    deadline = asyncio.get_running_loop().time() + grace
    script = (
        "(n) => { const b = window.rollroomBench;"
        " return b.entries.filter((e) => e.paint && b.shown[e.seq]).length >= n; }"
    )
    answered = "(n) => window.rollroomBench.posts.length >= n"
    for page, check in [(page, script) for _, page, _ in pages] + [(sender, answered)]:
        left = max(0.1, deadline - asyncio.get_running_loop().time())
        try:
            await page.wait_for_function(check, arg=count, timeout=left * 1000)
        except Exception:  # noqa: BLE001 -- a page that missed an entry is counted as such
            pass
    while len(reference.arrived) < count and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)


def timeline(raw, sender):
    """Each event with its timings, and the parts of the time on each other page."""
    names, records, plan_ = raw["names"], raw["records"], raw["plan"]
    mine = records[sender]
    # The events' entries in the order they were sent: the sender alone writes, one at a time.
    seqs = sorted({e["seq"] for e in mine["entries"]})
    events = []
    for k, event in enumerate(plan_):
        stamp = mine["sent"][k]["at"] if k < len(mine["sent"]) else None
        post = post_of(mine, k)
        seq = seqs[k] if k < len(seqs) else None
        out = {
            "n": event["n"],
            "kind": event["kind"],
            "warmup": event["warmup"],
            "seq": seq,
            "send_lag_ms": event.get("lag_ms"),
            "post_status": post and post["status"],
            # Enter/click to the POST leaving the page, and the POST's round trip.
            "to_post_ms": _ms(post and post["sent"], stamp),
            "post_ms": _ms(post and post["answered"], post and post["sent"]),
            "screens": {},
        }
        ref = raw["reference"].get(seq)
        out["reference_ms"] = _ms(ref, stamp)  # Enter to the frame at a plain client
        out["server_ms"] = _ms(ref, post and post["sent"])  # the POST sent to that frame
        for p, name in enumerate(names):
            entry = next((e for e in records[p]["entries"] if e["seq"] == seq), None)
            if entry is None or p == sender:
                if p != sender:
                    out["screens"][name] = None
                continue
            frame = entry.get("frame") or {}
            out["screens"][name] = {
                "frame_ms": _ms(frame.get("before"), stamp),  # Enter to the frame in the page
                "swap_ms": _ms(frame.get("after"), frame.get("before")),
                "scripts_ms": _ms(entry["dom"], frame.get("after")),
                "paint_ms": _ms(entry.get("paint"), entry["dom"]),
                # The entry in the DOM to the frame with it presented (Element Timing).
                "shown_ms": _ms(entry.get("shown"), entry["dom"]),
                "screen_ms": _ms(entry.get("paint"), stamp),
                "kind_ok": ENTRY_CLASS[event["kind"]] in entry["cls"].split(),
            }
        shown = [s for s in out["screens"].values() if s and s["screen_ms"] is not None]
        out["reached"] = len(shown)
        out["last_screen_ms"] = max((s["screen_ms"] for s in shown), default=None)
        events.append(out)
    return events


def post_of(records, k):
    """The POST the ``k``-th Enter or click sent: the first sent after it, before the next one
    (a refused or lost one leaves its event without, rather than shifting the others)."""
    sent = records["sent"]
    if k >= len(sent):
        return None
    start = sent[k]["at"]
    end = sent[k + 1]["at"] if k + 1 < len(sent) else float("inf")
    return next((p for p in records["posts"] if start <= p["sent"] < end), None)


def _ms(later, earlier):
    if later is None or earlier is None:
        return None
    return round(later - earlier, 3)


def figures(values):
    values = [v for v in values if v is not None]
    if not values:
        return {"p50_ms": None, "p90_ms": None, "max_ms": None, "count": 0}
    return {
        "p50_ms": round(percentile(values, 50), 1),
        "p90_ms": round(percentile(values, 90), 1),
        "max_ms": round(max(values), 1),
        "count": len(values),
    }


def summary(events, others):
    """The figures over the measured events (warm-ups left out): Enter/click to the last of the
    ``others`` pages, each part on every page, and the server's own."""
    measured = [e for e in events if not e["warmup"]]
    screens = [s for e in measured for s in e["screens"].values() if s]
    parts = {
        part: figures([s[part] for s in screens])
        for part in ("frame_ms", "swap_ms", "scripts_ms", "paint_ms", "shown_ms", "screen_ms")
    }
    out = {
        "every_screen": figures([e["last_screen_ms"] for e in measured]),
        "screen": parts.pop("screen_ms"),
        "parts": parts,
        "to_post": figures([e["to_post_ms"] for e in measured]),
        "post": figures([e["post_ms"] for e in measured]),
        "reference": figures([e["reference_ms"] for e in measured]),
        "server": figures([e["server_ms"] for e in measured]),
        "events": len(measured),
        "reached_every_page": sum(e["reached"] == others for e in measured),
        "wrong_kind": sum(not s["kind_ok"] for s in screens),
        "by_kind": {},
    }
    for kind in sorted(set(ENTRY_CLASS)):
        of_kind = [e["last_screen_ms"] for e in measured if e["kind"] == kind]
        if of_kind:
            out["by_kind"][kind] = figures(of_kind)
    server_p50 = out["server"]["p50_ms"]
    every_p50 = out["every_screen"]["p50_ms"]
    out["over_server_p50_ms"] = (
        round(every_p50 - server_p50, 1) if None not in (every_p50, server_p50) else None
    )
    return out


def dumps(out):
    return json.dumps(out)
