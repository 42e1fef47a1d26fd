// Keyboard help for the dashboard. Served from 'self' (the CSP allows no inline script); the pages work without it.
(function () {
  "use strict";

  function typing(element) {
    return element && (element.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName));
  }

  // "/" focuses the search box (on another page: opens search), unless the person is typing somewhere.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (typing(event.target)) return;
    event.preventDefault();
    var box = document.getElementById("q");
    if (box) {
      box.focus();
      box.select();
    } else {
      window.location.href = document.body.dataset.searchUrl || "/";
    }
  });

  // "Recent taggings" refreshes itself after Apply and Undo; it leaves out the tagging whose Undo the result shows.
  document.addEventListener("htmx:configRequest", function (event) {
    if (event.detail.elt.id !== "tag-recent") return;
    var shown = document.querySelector("#tag-result [name=shown]");
    if (shown) event.detail.parameters.shown = shown.value;
  });

  // After htmx swaps in a result that asks for it (Apply, Undo, their errors), focus it rather than <body>.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || !target.querySelector) return;
    var message = target.matches("[data-focus]") ? target : target.querySelector("[data-focus]");
    if (message) message.focus();
  });
})();
