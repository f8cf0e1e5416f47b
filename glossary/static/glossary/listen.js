/*
 * Listen where it was said: an inline player for timestamp links.
 *
 * Every timestamp on the public site is a plain link to the episode's audio with a
 * media fragment (episode-44.mp3#t=1538), which plays from that second without any
 * script. Where scripts run, this adds a real <button> after each such link (marked
 * with data-listen-audio, data-listen-start and data-listen-label) that plays the
 * episode from that second in one shared <audio controls> player on the page, so the
 * reader does not leave it. Keyboard: Tab to the button, Enter or Space plays; the
 * player's own controls and its "Close player" button follow; closing returns focus to
 * the button that opened it. Screen readers hear each button's label ("Play episode 44
 * at 25:38 here") and what is playing (a polite live region).
 */
(function () {
  "use strict";
  var links = document.querySelectorAll("a[data-listen-audio]");
  if (!links.length || typeof HTMLAudioElement === "undefined") {
    return;
  }
  var player = null;
  var audio = null;
  var status = null;
  var opener = null;

  function makePlayer() {
    player = document.createElement("section");
    player.className = "listen-player";
    player.setAttribute("aria-label", "Episode player");
    status = document.createElement("p");
    status.className = "listen-status";
    status.setAttribute("aria-live", "polite");
    audio = document.createElement("audio");
    audio.controls = true;
    audio.preload = "none";
    var close = document.createElement("button");
    close.type = "button";
    close.className = "listen-close";
    close.textContent = "Close player";
    close.addEventListener("click", function () {
      audio.pause();
      player.hidden = true;
      status.textContent = "";
      if (opener) {
        opener.focus();
      }
    });
    player.appendChild(status);
    player.appendChild(audio);
    player.appendChild(close);
    document.body.appendChild(player);
  }

  function play(src, start, label, button) {
    if (!player) {
      makePlayer();
    }
    opener = button;
    player.hidden = false;
    var seek = function () {
      audio.currentTime = start;
      var started = audio.play();
      if (started && started.catch) {
        started.catch(function () {
          status.textContent = "Could not play " + label + ". The link beside it opens the audio.";
        });
      }
    };
    status.textContent = "Playing " + label + ".";
    if (audio.getAttribute("src") !== src) {
      audio.setAttribute("src", src);
      audio.addEventListener("loadedmetadata", seek, { once: true });
      audio.load();
    } else if (audio.readyState >= 1) {
      seek();
    } else {
      audio.addEventListener("loadedmetadata", seek, { once: true });
    }
  }

  Array.prototype.forEach.call(links, function (link) {
    var src = link.getAttribute("data-listen-audio");
    var start = parseInt(link.getAttribute("data-listen-start"), 10) || 0;
    var label = link.getAttribute("data-listen-label") || "the episode";
    var button = document.createElement("button");
    button.type = "button";
    button.className = "listen-here";
    button.setAttribute("aria-label", "Play " + label + " here");
    button.textContent = "\u25B6";
    button.addEventListener("click", function () {
      play(src, start, label, button);
    });
    link.insertAdjacentElement("afterend", button);
  });
})();
