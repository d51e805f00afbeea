// The board's few behaviours, in plain JavaScript (no build step):
// the timeline (slider, arrow keys, the URL holding the position), live
// updates from the server's event stream, and the judge's rewind preview.
// Every board is rendered by the server; this file only asks for the
// fragment of another position and puts it in place.
"use strict";

(function () {
  function matchPage(root) {
    const match = root.dataset.match;
    const viewer = root.dataset.viewer;
    const token = root.dataset.token;
    const slider = document.getElementById("slider");
    const board = document.getElementById("board");
    const atLabel = document.getElementById("at");
    const versionLabel = document.getElementById("version");
    const preview = document.getElementById("preview");
    let version = Number(slider.max);
    let at = Number(slider.value);
    let live = board.querySelector(".position").dataset.live === "yes";
    let wanted = null; // the position the latest request is for
    let timer = null;

    function query(position) {
      const params = new URLSearchParams();
      params.set("as", viewer);
      if (position !== null) params.set("at", String(position));
      if (token) params.set("token", token);
      return params.toString();
    }

    // Show the board at `position` (null: the latest event, following live).
    async function show(position) {
      wanted = position;
      const response = await fetch(`/matches/${encodeURIComponent(match)}/board?${query(position)}`,
                                   { headers: { Accept: "text/html" } });
      if (!response.ok || wanted !== position) return; // a newer request won
      board.innerHTML = await response.text();
      const shown = board.querySelector(".position").dataset;
      at = Number(shown.at);
      version = Number(shown.version);
      live = shown.live === "yes";
      slider.max = String(version);
      slider.value = String(at);
      atLabel.textContent = String(at);
      versionLabel.textContent = String(version);
      // The URL holds the position, so a judge can send a colleague this moment.
      history.replaceState(null, "", `/matches/${encodeURIComponent(match)}?${query(live ? null : at)}`);
      root.dataset.at = String(at);
    }

    function go(position) {
      const target = Math.max(0, Math.min(version, position));
      // Move at once, so keys pressed before the board arrives add up.
      at = target;
      slider.value = String(target);
      atLabel.textContent = String(target);
      show(target >= version ? null : target);
    }

    slider.addEventListener("input", function () {
      atLabel.textContent = slider.value;
      clearTimeout(timer);
      timer = setTimeout(function () { go(Number(slider.value)); }, 60);
    });
    root.querySelectorAll("[data-step]").forEach(function (button) {
      button.addEventListener("click", function () { go(at + Number(button.dataset.step)); });
    });
    document.getElementById("golive").addEventListener("click", function () { show(null); });

    document.addEventListener("keydown", function (event) {
      const tag = (event.target.tagName || "").toLowerCase();
      if (tag === "input" && event.target !== slider) return;
      if (tag === "textarea" || event.altKey || event.ctrlKey || event.metaKey) return;
      const step = event.shiftKey ? 10 : 1;
      if (event.key === "ArrowLeft") go(at - step);
      else if (event.key === "ArrowRight") go(at + step);
      else if (event.key === "Home") go(0);
      else if (event.key === "End") show(null);
      else return;
      event.preventDefault(); // the slider would move a second time
    });

    // Clicking an event number in the log moves the timeline there.
    board.addEventListener("click", async function (event) {
      const link = event.target.closest("a[data-at]");
      if (link) {
        event.preventDefault();
        go(Number(link.dataset.at));
        return;
      }
      const button = event.target.closest("[data-preview]");
      if (button && preview) {
        const response = await fetch(`/matches/${encodeURIComponent(match)}/rewind?to=${button.dataset.preview}`);
        preview.innerHTML = await response.text();
        preview.hidden = false;
      }
    });
    if (preview) {
      preview.addEventListener("click", function (event) {
        if (event.target.closest("[data-close-preview]")) preview.hidden = true;
      });
    }

    // Live: the server says when the match has a new version; a page at
    // the latest event follows it, a page looking back only learns the length.
    const stream = new EventSource(`/matches/${encodeURIComponent(match)}/live`);
    stream.addEventListener("version", function (event) {
      const latest = JSON.parse(event.data).version;
      if (latest === version) return;
      if (live) {
        show(null);
      } else {
        version = latest;
        slider.max = String(version);
        versionLabel.textContent = String(version);
      }
    });
  }

  function tablesPage(section) {
    // At most one refresh per data-min-interval ms, however many tables act:
    // changes arriving in between are folded into one refresh at the end.
    const every = Number(section.dataset.minInterval || 0);
    let pending = false;
    let last = 0;
    let timer = null;
    async function refresh() {
      if (pending) return;
      pending = true;
      last = Date.now();
      try {
        const response = await fetch(section.dataset.fragment);
        if (response.ok) section.innerHTML = await response.text();
      } finally {
        pending = false;
      }
      countdowns(section);
    }
    function changed() {
      const wait = last + every - Date.now();
      if (wait <= 0) { refresh(); return; }
      if (timer === null) timer = setTimeout(function () { timer = null; refresh(); }, wait);
    }
    const stream = new EventSource(section.dataset.live);
    stream.addEventListener("tables", changed);
  }

  // --- tournament pages (issue 16): the round clock counts down each second ---
  function countdowns(root) {
    root.querySelectorAll("[data-countdown]").forEach(function (el) {
      if (el.dataset.called) { return; }
      const ends = Date.parse(el.dataset.countdown);
      function tick() {
        const left = Math.max(0, Math.round((ends - Date.now()) / 1000));
        el.textContent = left > 0 ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` : "TIME";
        return left;
      }
      if (el.dataset.ticking) return;
      el.dataset.ticking = "yes";
      tick();
      const id = setInterval(function () { if (!el.isConnected || tick() === 0) clearInterval(id); }, 1000);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const root = document.getElementById("match");
    if (root) matchPage(root);
    const tables = document.getElementById("tables");
    if (tables) tablesPage(tables);
    countdowns(document);
  });
})();
