// Who else has this entry open (editorial.presence, docs/who-is-editing.md).
// The banner is drawn with the page; this keeps it current by reporting every
// data-interval-ms, and takes the mark away when the page is left.
(function () {
  "use strict";
  const banner = document.getElementById("presence");
  if (!banner) return;
  const tokenInput = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (!tokenInput) return;
  const token = tokenInput.value;
  const list = banner.querySelector("ul");
  const interval = Number(banner.dataset.intervalMs) || 30000;

  function show(others) {
    list.replaceChildren(
      ...others.map(function (other) {
        const item = document.createElement("li");
        item.textContent = other.sentence;
        return item;
      })
    );
    banner.hidden = others.length === 0;
  }

  function beat() {
    fetch(banner.dataset.heartbeatUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": token },
    })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (answer) {
        if (answer) show(answer.others);
      })
      .catch(function () {
        // Offline for a moment: the next beat tries again; the banner keeps what it knew.
      });
  }

  let timer = window.setInterval(beat, interval);
  window.addEventListener("pagehide", function () {
    window.clearInterval(timer);
    const body = new FormData();
    body.append("csrfmiddlewaretoken", token);
    navigator.sendBeacon(banner.dataset.leaveUrl, body);
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      // Back from the browser's page cache: we left, so say we are here again.
      beat();
      timer = window.setInterval(beat, interval);
    }
  });
  // Exposed for the browser test, which cannot wait half a minute.
  banner.beat = beat;
})();
