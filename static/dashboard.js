// Keyboard help for the dashboard. Served from 'self' (the CSP allows no inline script); the pages work without it.
(function () {
  "use strict";

  function typing(element) {
    return element && (element.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName));
  }

  // "/" focuses the search box (on another page: opens search, unless a form there was filled in),
  // unless the person is typing somewhere.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (typing(event.target)) return;
    event.preventDefault();
    var box = document.getElementById("q");
    var searchUrl = document.body.dataset.searchUrl || "/";
    if (box) {
      box.focus();
      box.select();
    } else if (Array.prototype.some.call(document.forms, edited)) {
      // Leaving would lose what the person filled in: only point at search (Enter opens it).
      var link = document.querySelector('.nav a[href="' + searchUrl + '"]');
      if (link) link.focus();
    } else {
      window.location.href = searchUrl;
    }
  });

  // Whether a form holds input the person changed from what the page came with.
  function edited(form) {
    return Array.prototype.some.call(form.elements, function (el) {
      if (el.disabled || el.type === "hidden" || el.type === "submit" || el.type === "button") return false;
      if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
      if (el.tagName === "SELECT") {
        var initial = Array.prototype.findIndex.call(el.options, function (o) { return o.defaultSelected; });
        if (el.multiple) return Array.prototype.some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
        return el.selectedIndex !== Math.max(initial, 0);
      }
      return typeof el.defaultValue === "string" && el.value !== el.defaultValue;
    });
  }

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
