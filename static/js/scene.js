// The room's scene (#47): the map and its tokens placed on it, panned and zoomed, and the tokens
// the viewer may move (data-movable) moved by dragging (mouse, touch, pen) or by the arrow keys.
//
// A token's centre is data-x/data-y in the map's pixels (the server's, or the viewer's drop not
// yet answered); this file puts it on the map as shown, through element.style (the CSP refuses
// style="" attributes). A move is sent once, on the drop (or the key), never while dragging; the
// server orders the moves of a token (data-moves counts them) and pushes each to the room
// (scene/moves.py). A push or an answer carrying no more moves than the page has seen is
// dropped: an older move arriving late never puts the token back (no flicker). While the
// viewer's own move is on its way (or the token is held), what the server says of the token is
// kept, and shown once the answer is in: the token stays where it was dropped meanwhile.
//
// After a swap (the card fetched again on a reconnect, a new scene) everything is placed again;
// the zoom and pan of each scene are kept (by data-scene).
(function () {
  "use strict";

  if (window.rollroomScene) return; // loaded twice (the card's script and the room's)
  window.rollroomScene = true;

  const MAX_ZOOM = 8;
  const STEP = 1.5; // the zoom buttons' factor
  const NO_GRID_STEP = 10; // an arrow key's move in map pixels when the scene has no grid
  const DRAG_SLOP = 4; // screen pixels a pointer moves before a press is a drag
  const MIN_TOKEN = 24; // screen pixels: a token stays big enough to take with a finger

  const views = new Map(); // data-scene -> { zoom, px, py }: the map's zoom and its top-left
  const held = new Map(); // token id -> { inFlight, dragging, server: {x, y, moves} }

  function num(value, fallback) {
    const n = Number(value);
    return Number.isFinite(n) ? n : fallback;
  }

  // data-snap: present and not "0"/"false"/"no".
  function flag(value) {
    return value !== undefined && !/^(0|false|no)$/i.test(value);
  }

  function geometry(view) {
    return {
      width: Math.max(1, num(view.dataset.width, 1)),
      height: Math.max(1, num(view.dataset.height, 1)),
      grid: Math.max(0, num(view.dataset.grid, 0)),
      gridX: num(view.dataset.gridX, 0),
      gridY: num(view.dataset.gridY, 0),
      snap: flag(view.dataset.snap),
    };
  }

  function stateOf(view) {
    const key = view.dataset.scene || "";
    if (!views.has(key)) views.set(key, { zoom: 1, px: null, py: null });
    return views.get(key);
  }

  // The scale at which the whole map fits the view.
  function fitScale(view, g) {
    return Math.min(view.clientWidth / g.width, view.clientHeight / g.height) || 1;
  }

  function scaleOf(view) {
    return fitScale(view, geometry(view)) * stateOf(view).zoom;
  }

  // Keep the map on the view: centred along a side it does not fill, else no empty edge.
  function clampPan(view) {
    const g = geometry(view);
    const s = stateOf(view);
    const scale = fitScale(view, g) * s.zoom;
    const w = g.width * scale;
    const h = g.height * scale;
    const vw = view.clientWidth;
    const vh = view.clientHeight;
    s.px = w <= vw ? (vw - w) / 2 : Math.min(0, Math.max(vw - w, s.px === null ? 0 : s.px));
    s.py = h <= vh ? (vh - h) / 2 : Math.min(0, Math.max(vh - h, s.py === null ? 0 : s.py));
  }

  function placeToken(view, token) {
    const g = geometry(view);
    const s = stateOf(view);
    const scale = fitScale(view, g) * s.zoom;
    const size = Math.max(MIN_TOKEN, (g.grid || 50) * scale * 0.9);
    token.style.left = s.px + num(token.dataset.x, 0) * scale + "px";
    token.style.top = s.py + num(token.dataset.y, 0) * scale + "px";
    token.style.width = size + "px";
    token.style.height = size + "px";
    token.style.fontSize = Math.max(12, size * 0.45) + "px";
    if (token.dataset.colour) token.style.backgroundColor = token.dataset.colour;
  }

  function layout(view) {
    const g = geometry(view);
    setUp(view);
    // The view is as tall as the map at its width, but never taller than most of the screen.
    const tall = Math.round((g.height * view.clientWidth) / g.width);
    view.style.height = Math.max(160, Math.min(tall, Math.round(window.innerHeight * 0.7))) + "px";
    clampPan(view);
    const s = stateOf(view);
    const scale = fitScale(view, g) * s.zoom;
    // The map, and its grid over it (templates/scene/_scene.html), panned and zoomed alike.
    [view.querySelector("img"), view.querySelector(".scene-grid")].forEach(function (layer) {
      if (!layer) return;
      layer.style.left = s.px + "px";
      layer.style.top = s.py + "px";
      layer.style.width = g.width * scale + "px";
      layer.style.height = g.height * scale + "px";
    });
    view.querySelectorAll(".token").forEach(function (token) {
      placeToken(view, token);
    });
    view.classList.add("ready");
    const zoomOut = toolsOf(view) && toolsOf(view).querySelector("[data-zoom=out]");
    if (zoomOut) zoomOut.disabled = s.zoom <= 1;
  }

  function layoutAll() {
    document.querySelectorAll(".scene-view").forEach(layout);
  }

  // The zoom buttons and the card's status line, made once before each view.
  function toolsOf(view) {
    const before = view.previousElementSibling;
    return before && before.classList.contains("scene-tools") ? before : null;
  }

  function setUp(view) {
    if (toolsOf(view)) return;
    const tools = document.createElement("div");
    tools.className = "scene-tools";
    tools.setAttribute("role", "group");
    tools.setAttribute("aria-label", "Map view");
    [
      ["in", "Zoom in"],
      ["out", "Zoom out"],
      ["fit", "Fit"],
    ].forEach(function (pair) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.dataset.zoom = pair[0];
      button.textContent = pair[1];
      tools.appendChild(button);
    });
    const status = document.createElement("span");
    status.className = "scene-status";
    status.setAttribute("role", "status");
    tools.appendChild(status);
    if (!document.getElementById("token-help")) {
      const help = document.createElement("span");
      help.id = "token-help";
      help.className = "sr-only";
      help.textContent = "Drag it, or press an arrow key to move it one square.";
      tools.appendChild(help);
    }
    view.parentNode.insertBefore(tools, view);
  }

  function say(view, text) {
    const tools = view && toolsOf(view);
    const status = tools && tools.querySelector(".scene-status");
    if (status) status.textContent = text;
  }

  // Zoom to ``zoom`` keeping the map point under (vx, vy) (view pixels) where it is.
  function zoomAt(view, zoom, vx, vy) {
    const s = stateOf(view);
    const before = scaleOf(view);
    s.zoom = Math.min(MAX_ZOOM, Math.max(1, zoom));
    const after = scaleOf(view);
    s.px = vx - ((vx - s.px) * after) / before;
    s.py = vy - ((vy - s.py) * after) / before;
    layout(view);
  }

  function zoomCentre(view, factor) {
    zoomAt(view, stateOf(view).zoom * factor, view.clientWidth / 2, view.clientHeight / 2);
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest(".scene-tools [data-zoom]");
    if (!button) return;
    const view = button.parentNode.nextElementSibling;
    if (!view || !view.classList.contains("scene-view")) return;
    const how = button.dataset.zoom;
    if (how === "in") zoomCentre(view, STEP);
    else if (how === "out") zoomCentre(view, 1 / STEP);
    else {
      const s = stateOf(view);
      s.zoom = 1;
      s.px = s.py = null;
      layout(view);
    }
  });

  document.addEventListener(
    "wheel",
    function (event) {
      const view = event.target.closest && event.target.closest(".scene-view");
      if (!view) return;
      event.preventDefault(); // the page does not scroll under the map
      const rect = view.getBoundingClientRect();
      const factor = Math.exp(-event.deltaY * 0.002);
      zoomAt(view, stateOf(view).zoom * factor, event.clientX - rect.left, event.clientY - rect.top);
    },
    { passive: false }
  );

  // Where a token may go ------------------------------------------------------------------------

  function onMap(g, x, y) {
    return {
      x: Math.min(g.width - 1, Math.max(0, Math.round(x))),
      y: Math.min(g.height - 1, Math.max(0, Math.round(y))),
    };
  }

  // The middle of the grid square, as the server snaps it (scene/moves.py).
  function snapped(g, place) {
    if (!g.snap || !g.grid) return place;
    const middle = function (value, offset) {
      return offset + Math.floor((value - offset) / g.grid) * g.grid + Math.floor(g.grid / 2);
    };
    return onMap(g, middle(place.x, g.gridX), middle(place.y, g.gridY));
  }

  // What the server says of tokens ---------------------------------------------------------------

  // A token's place in a fragment (a push or a move's answer), or null.
  function parsed(html) {
    if (typeof html !== "string" || !/^\s*<button[^>]*class="token/.test(html)) return null;
    const template = document.createElement("template");
    template.innerHTML = html;
    const token = template.content.querySelector(".token[data-token]");
    if (!token) return null;
    return {
      id: token.dataset.token,
      x: num(token.dataset.x, 0),
      y: num(token.dataset.y, 0),
      moves: num(token.dataset.moves, 0),
    };
  }

  function tokenEl(id) {
    return document.getElementById("token-" + id);
  }

  function show(token, place) {
    token.dataset.x = place.x;
    token.dataset.y = place.y;
    token.dataset.moves = place.moves;
    const view = token.closest(".scene-view");
    if (view) placeToken(view, token);
  }

  // The server's word on a token: shown at once, unless the viewer holds it (then kept for
  // ``release``); dropped when it is not newer than what the page has.
  function heard(place) {
    const token = tokenEl(place.id);
    const hold = held.get(place.id);
    if (hold) {
      if (place.moves > hold.server.moves) hold.server = place;
      return;
    }
    if (token && place.moves > num(token.dataset.moves, 0)) show(token, place);
  }

  function hold(token) {
    const id = token.dataset.token;
    if (!held.has(id)) {
      held.set(id, {
        inFlight: 0,
        again: false, // moved again while a move was on its way: to send once it is answered
        sent: null,
        dragging: false,
        server: { id: id, x: num(token.dataset.x, 0), y: num(token.dataset.y, 0), moves: num(token.dataset.moves, 0) },
      });
    }
    return held.get(id);
  }

  // Once the viewer's moves of a token are all answered and it is no longer dragged: where the
  // server last said it is (the viewer's own move, or a later one).
  function release(id) {
    const h = held.get(id);
    if (!h || h.inFlight || h.dragging) return;
    held.delete(id);
    const token = tokenEl(id);
    // Not over a newer token swapped in meanwhile (the card fetched again on a reconnect).
    if (token && h.server.moves >= num(token.dataset.moves, 0)) show(token, h.server);
  }

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    const place = parsed(event.detail.message);
    if (!place) return;
    event.preventDefault(); // placed here, not swapped: the token keeps its focus and its place
    heard(place);
  });

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["x-csrftoken"] || "";
    } catch (error) {
      return "";
    }
  }

  // Send the viewer's move of ``token`` to where it now shows. One request at a time per token:
  // two on their way at once could be run by the server in either order (the keys' last square
  // lost to the one before); keys pressed meanwhile are sent as one move once it is answered.
  function send(token) {
    const id = token.dataset.token;
    const h = hold(token);
    const view = token.closest(".scene-view");
    if (h.inFlight) {
      h.again = true;
      return;
    }
    h.inFlight += 1;
    h.sent = { x: token.dataset.x, y: token.dataset.y };
    const body = new FormData();
    body.append("x", token.dataset.x);
    body.append("y", token.dataset.y);
    fetch(token.dataset.move, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "HX-Request": "true" },
    })
      .then(function (response) {
        return response.text().then(function (text) {
          if (response.ok) {
            const place = parsed(text);
            if (place && place.moves > h.server.moves) h.server = place;
            say(view, "");
          } else if (response.status === 422 || response.status === 429 || response.status === 503) {
            say(view, text);
          } else {
            say(view, "The move was not made (" + response.status + ").");
          }
        });
      })
      .catch(function () {
        say(view, "The move was not sent: check the connection.");
      })
      .finally(function () {
        h.inFlight -= 1;
        const now = tokenEl(id);
        if (h.again && now) {
          h.again = false;
          if (now.dataset.x !== h.sent.x || now.dataset.y !== h.sent.y) {
            send(now);
            return;
          }
        }
        release(id);
      });
  }

  // Show ``token`` at ``place`` (on the map, snapped as the server will) and send the move, but
  // for a move to where it was (``from``; default: where it shows).
  function moveTo(token, place, from) {
    const view = token.closest(".scene-view");
    if (!view) return;
    const g = geometry(view);
    const to = snapped(g, onMap(g, place.x, place.y));
    const was = from || { x: num(token.dataset.x, 0), y: num(token.dataset.y, 0) };
    token.dataset.x = to.x;
    token.dataset.y = to.y;
    placeToken(view, token);
    if (to.x === was.x && to.y === was.y) return;
    hold(token);
    send(token);
  }

  // The keyboard: an arrow key moves the focused token one square ------------------------------

  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  document.addEventListener("keydown", function (event) {
    const token = event.target.closest && event.target.closest(".token[data-movable]");
    const way = ARROWS[event.key];
    if (!token || !way || event.altKey || event.ctrlKey || event.metaKey) return;
    const view = token.closest(".scene-view");
    if (!view) return;
    event.preventDefault(); // the page does not scroll
    const g = geometry(view);
    const step = g.grid || NO_GRID_STEP;
    const x = num(token.dataset.x, 0) + way[0] * step;
    const y = num(token.dataset.y, 0) + way[1] * step;
    if (x < 0 || y < 0 || x >= g.width || y >= g.height) {
      say(view, "That is the edge of the map.");
      return;
    }
    moveTo(token, { x: x, y: y });
  });

  // Pointers: drag a token; drag the map to pan it, pinch it to zoom ---------------------------

  // { token, view, pointer, from: [clientX, clientY], grab: [dx, dy], start: {x, y}, moved }
  let drag = null;
  const pans = new Map(); // pointer id -> [clientX, clientY], on a view's empty map
  let panView = null;
  let pinch = null; // { distance, zoom }

  function mapPoint(view, clientX, clientY) {
    const rect = view.getBoundingClientRect();
    const s = stateOf(view);
    const scale = scaleOf(view);
    return { x: (clientX - rect.left - s.px) / scale, y: (clientY - rect.top - s.py) / scale };
  }

  document.addEventListener("pointerdown", function (event) {
    const view = event.target.closest && event.target.closest(".scene-view");
    if (!view || (event.pointerType === "mouse" && event.button !== 0)) return;
    const token = event.target.closest(".token[data-movable]");
    if (token && !drag && !pans.size) {
      event.preventDefault();
      token.focus({ preventScroll: true });
      token.setPointerCapture(event.pointerId);
      const at = mapPoint(view, event.clientX, event.clientY);
      drag = {
        token: token,
        view: view,
        pointer: event.pointerId,
        from: [event.clientX, event.clientY],
        grab: [num(token.dataset.x, 0) - at.x, num(token.dataset.y, 0) - at.y],
        start: { x: num(token.dataset.x, 0), y: num(token.dataset.y, 0) },
        moved: false,
      };
      hold(token).dragging = true;
      return;
    }
    if (drag || (panView && panView !== view)) return;
    event.preventDefault();
    view.setPointerCapture(event.pointerId);
    panView = view;
    pans.set(event.pointerId, [event.clientX, event.clientY]);
    if (pans.size === 2) pinch = { distance: spread(), zoom: stateOf(view).zoom };
  });

  function spread() {
    const [a, b] = Array.from(pans.values());
    return Math.hypot(a[0] - b[0], a[1] - b[1]) || 1;
  }

  function middle() {
    const points = Array.from(pans.values());
    return [
      points.reduce((sum, p) => sum + p[0], 0) / points.length,
      points.reduce((sum, p) => sum + p[1], 0) / points.length,
    ];
  }

  document.addEventListener("pointermove", function (event) {
    if (drag && event.pointerId === drag.pointer) {
      if (!drag.moved && Math.hypot(event.clientX - drag.from[0], event.clientY - drag.from[1]) < DRAG_SLOP) return;
      drag.moved = true;
      drag.token.classList.add("dragging");
      const at = mapPoint(drag.view, event.clientX, event.clientY);
      const place = onMap(geometry(drag.view), at.x + drag.grab[0], at.y + drag.grab[1]);
      drag.token.dataset.x = place.x;
      drag.token.dataset.y = place.y;
      placeToken(drag.view, drag.token);
      return;
    }
    if (!panView || !pans.has(event.pointerId)) return;
    const before = middle();
    pans.set(event.pointerId, [event.clientX, event.clientY]);
    const after = middle();
    const s = stateOf(panView);
    s.px += after[0] - before[0];
    s.py += after[1] - before[1];
    if (pinch && pans.size === 2) {
      const rect = panView.getBoundingClientRect();
      zoomAt(panView, (pinch.zoom * spread()) / pinch.distance, after[0] - rect.left, after[1] - rect.top);
    } else {
      layout(panView);
    }
  });

  function pointerEnd(event) {
    if (drag && event.pointerId === drag.pointer) {
      const ended = drag;
      drag = null;
      ended.token.classList.remove("dragging");
      const h = hold(ended.token);
      h.dragging = false;
      if (ended.moved && event.type === "pointerup") {
        moveTo(ended.token, { x: num(ended.token.dataset.x, 0), y: num(ended.token.dataset.y, 0) }, ended.start);
      } else if (ended.moved) {
        ended.token.dataset.x = ended.start.x; // a cancelled drag: back where it was
        ended.token.dataset.y = ended.start.y;
        placeToken(ended.view, ended.token);
      }
      release(ended.token.dataset.token); // at once when nothing was sent, else once answered
      return;
    }
    if (pans.delete(event.pointerId)) {
      if (pans.size < 2) pinch = null;
      if (!pans.size) panView = null;
    }
  }
  document.addEventListener("pointerup", pointerEnd);
  document.addEventListener("pointercancel", pointerEnd);

  // A push that is the comment <!--scene--> asks the scene card to fetch itself again, for this
  // viewer (its hx-trigger "scene from:body"): a change a push would not carry whole.
  document.addEventListener("htmx:wsAfterMessage", function (event) {
    const message = event.detail && event.detail.message;
    if (typeof message === "string" && message.indexOf("<!--scene-->") !== -1) {
      htmx.trigger(document.body, "scene");
    }
  });

  // Placed again after every swap (the card again after a reconnect, a new scene, a token
  // added) and when the window changes size.
  document.addEventListener("DOMContentLoaded", layoutAll);
  document.addEventListener("htmx:load", layoutAll);
  window.addEventListener("resize", layoutAll);
})();
