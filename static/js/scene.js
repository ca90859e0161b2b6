// The shown scene (templates/scene/_scene.html): each token placed on the map from its
// data-x/data-y (its centre, in the map's pixels) as a share of the map's size, so it stays on
// its square however wide the map is drawn; a grid square wide; its colour from data-colour.
// Set here, through element.style: the Content-Security-Policy refuses inline style attributes.
(function () {
  "use strict";

  function place(token, view) {
    const width = Number(view.dataset.width) || 1;
    const height = Number(view.dataset.height) || 1;
    const grid = Number(view.dataset.grid) || 50;
    token.style.left = (100 * Number(token.dataset.x)) / width + "%";
    token.style.top = (100 * Number(token.dataset.y)) / height + "%";
    token.style.width = (100 * grid) / width + "%";
    token.style.height = (100 * grid) / height + "%";
    if (/^#[0-9a-fA-F]{6}$/.test(token.dataset.colour || "")) {
      token.style.backgroundColor = token.dataset.colour;
    }
  }

  function placeAll(root) {
    const scope = root && root.querySelectorAll ? root : document;
    const views = scope.matches && scope.matches(".scene-view") ? [scope] : [];
    scope.querySelectorAll(".scene-view").forEach(function (view) {
      views.push(view);
    });
    views.forEach(function (view) {
      view.querySelectorAll(".token").forEach(function (token) {
        place(token, view);
      });
    });
  }

  // A token whose data-x/data-y changed (a move) is placed again: window.sceneTokenPlace.
  window.sceneTokenPlace = function (token) {
    const view = token.closest(".scene-view");
    if (view) place(token, view);
  };

  // The card as the page came, then every copy a fetch or a push swaps in (htmx: style is not
  // settled, so a new copy of a token starts unplaced).
  document.addEventListener("DOMContentLoaded", function () {
    placeAll(document);
  });
  document.addEventListener("htmx:load", function (event) {
    placeAll(event.target);
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    placeAll(event.detail && event.detail.target ? event.detail.target : document);
  });
  if (document.readyState !== "loading") placeAll(document);

  // A push that is the comment <!--scene--> asks the scene card to fetch itself again, for this
  // viewer (its hx-trigger "scene from:body"): a change a push would not carry whole.
  document.addEventListener("htmx:wsAfterMessage", function (event) {
    const message = event.detail && event.detail.message;
    if (typeof message === "string" && message.indexOf("<!--scene-->") !== -1) {
      htmx.trigger(document.body, "scene");
    }
  });
})();
