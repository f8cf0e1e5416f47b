// Select2, the admin's autocomplete, names its combobox after the option it shows, so an
// empty one has no accessible name, and in a tabular inline there is no label to fall
// back on. Name each combobox after its field: its <label>, or its column's header.
(function () {
  "use strict";

  function fieldName(select) {
    var label = select.id && document.querySelector('label[for="' + select.id + '"]');
    if (label && label.textContent.trim()) {
      return label.textContent.trim().replace(/:$/, "");
    }
    var cell = select.closest("td");
    var column = cell && /(?:^|\s)field-(\S+)/.exec(cell.className);
    var table = cell && cell.closest("table");
    var header = column && table && table.querySelector("th.column-" + column[1]);
    return header ? header.textContent.trim() : "";
  }

  function nameComboboxes(root) {
    root.querySelectorAll("select.admin-autocomplete").forEach(function (select) {
      var container = select.nextElementSibling;
      var box = container && container.querySelector('.select2-selection[role="combobox"]');
      var name = fieldName(select);
      if (!box || !name) {
        return;
      }
      // The combobox, and the read-only text box inside it that shows the choice.
      [box, box.querySelector('[role="textbox"]')].forEach(function (element) {
        if (element && !element.hasAttribute("aria-label")) {
          element.setAttribute("aria-label", name);
        }
      });
    });
  }

  // After the admin's own handlers: its autocomplete starts in a jQuery ready handler
  // (registered by autocomplete.js, which runs before this deferred script) and on each
  // added inline row; handlers run in the order they were registered.
  var jQuery = window.django && window.django.jQuery;
  if (jQuery) {
    jQuery(function () {
      nameComboboxes(document);
    });
  }
  document.addEventListener("formset:added", function (event) {
    nameComboboxes(event.target);
  });
})();
