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


// The admin's date and time shortcuts ("Today", "Now") fill in the time of the zone the
// page is in, which the desk makes the newsroom's (editorial.newsroom.DeskTimeMiddleware
// sets the offset they read, body's data-admin-utc-offset). Two things of the desk's own:
// - Django's notice for a browser in another zone speaks of "server time"; the desk's
//   times are newsroom time, so it says that, once per page, naming the zone;
// - a time field with data-soon-minutes gets "Now + N min", filling in its date field
//   (data-date-field) too, as the day may turn over: newsroom time, N minutes from now.
(function () {
  "use strict";

  var shortcuts = window.DateTimeShortcuts;
  if (!shortcuts) {
    return;
  }

  function zoneName() {
    var label = document.getElementById("desk-time-zone");
    return (label && label.dataset.zone) || "";
  }

  function hours(seconds) {
    var n = Math.round((Math.abs(seconds) / 3600) * 100) / 100;
    return n + (n === 1 ? " hour" : " hours");
  }

  // Called by DateTimeShortcuts.init (on load) for each date and time field.
  shortcuts.addTimezoneWarning = function (input) {
    var offset = shortcuts.timezoneOffset;
    if (!offset || document.querySelector("." + shortcuts.timezoneWarningClass)) {
      return;
    }
    var zone = zoneName();
    var warning = document.createElement("div");
    warning.classList.add("help", shortcuts.timezoneWarningClass);
    warning.textContent =
      "Note: your computer's clock is " + hours(offset) + (offset > 0 ? " ahead of" : " behind") +
      " newsroom time" + (zone ? " (" + zone + ")" : "") +
      ". Type times as the newsroom reads them; Today and Now fill them in.";
    input.parentNode.appendChild(warning);
  };

  // The wall-clock time in `zone` at `instant`, as a Date whose own fields read it (what
  // Django's strftime writes); null when the browser does not know the zone.
  function wallClock(instant, zone) {
    if (!zone || !window.Intl) {
      return null;
    }
    try {
      var parts = {};
      new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      })
        .formatToParts(instant)
        .forEach(function (part) {
          parts[part.type] = part.value;
        });
      return new Date(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
    } catch (e) {
      return null;
    }
  }

  function soon(minutes) {
    var later = new Date(Date.now() + minutes * 60000);
    // By the zone's name, so a change of the clocks within those minutes is counted.
    var local = wallClock(later, zoneName());
    if (local) {
      return local;
    }
    local = shortcuts.now(); // the page's offset, as Django's own "Now"
    local.setTime(local.getTime() + minutes * 60000);
    return local;
  }

  function addSoonLinks() {
    document.querySelectorAll("input.vTimeField[data-soon-minutes]").forEach(function (input) {
      var minutes = parseInt(input.dataset.soonMinutes, 10);
      var dateInput = input.form && input.form.elements.namedItem(input.dataset.dateField || "");
      var span = input.parentNode.querySelector("." + shortcuts.shortCutsClass);
      if (!minutes || !span) {
        return;
      }
      var link = document.createElement("a");
      link.href = "#";
      link.className = "soon-link";
      link.textContent = "Now + " + minutes + " min";
      link.addEventListener("click", function (event) {
        event.preventDefault();
        var when = soon(minutes);
        input.value = when.strftime(window.get_format("TIME_INPUT_FORMATS")[0]);
        if (dateInput) {
          dateInput.value = when.strftime(window.get_format("DATE_INPUT_FORMATS")[0]);
        }
        input.focus();
      });
      span.appendChild(document.createTextNode("\u00A0|\u00A0"));
      span.appendChild(link);
    });
  }

  // After DateTimeShortcuts.init, which adds the shortcut links on load.
  window.addEventListener("load", addSoonLinks);
})();
