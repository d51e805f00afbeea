// The board's few behaviours, in plain JavaScript (no build step):
// the timeline (slider, arrow keys, the URL holding the position), live
// updates from the server's event stream, the judge's rewind preview, and
// the console: every form of the board is posted in the background and the
// server's new board put in place (a page without JavaScript posts them as
// ordinary forms). Every board is rendered by the server; this file only
// asks for fragments and puts them in place.
"use strict";

(function () {
  const FRAGMENT = { "X-Requested-With": "referee-console" };
  const WAIT_MS = 6000; // a request without an answer by then: the store or the network is down

  function withTimeout(ms) {
    const controller = new AbortController();
    const timer = setTimeout(function () { controller.abort(); }, ms);
    return { signal: controller.signal, done: function () { clearTimeout(timer); } };
  }

  function matchPage(root) {
    const match = root.dataset.match;
    const viewer = root.dataset.viewer;
    const token = root.dataset.token;
    const csrf = root.dataset.csrf;
    const slider = document.getElementById("slider");
    const board = document.getElementById("board");
    const atLabel = document.getElementById("at");
    const versionLabel = document.getElementById("version");
    const preview = document.getElementById("preview");
    const connection = document.getElementById("connection");
    const cardpop = document.getElementById("cardpop");
    let version = Number(slider.max);
    let at = Number(slider.value);
    let live = board.querySelector(".position").dataset.live === "yes";
    let wanted = null; // the position the latest request is for
    let answered = 0; // boards put in place from a form's answer, to tell a live fetch it was overtaken
    let timer = null;
    let sending = false; // a form is on its way: nothing else is sent (a double tap logs once)
    let lastFailed = null; // a submission whose answer never came: "send again" resends it as it was
    let hoverTimer = null;
    let hovering = false; // the card text shown is a hover's, which leaving the card closes

    function say(text, kind) {
      if (!text) {
        connection.hidden = true;
        connection.textContent = "";
        return;
      }
      connection.hidden = false;
      connection.className = "connection " + (kind || "");
      connection.textContent = text;
    }

    function query(position) {
      const params = new URLSearchParams();
      params.set("as", viewer);
      if (position !== null) params.set("at", String(position));
      if (token) params.set("token", token);
      return params.toString();
    }

    // Put a board fragment from the server in place and follow its position.
    function place(html) {
      // A form being filled in (an instruction's <details>) survives the
      // board being drawn again (a live update, a reconnect): it is reopened
      // with the values already chosen, so nothing typed is lost.
      const kept = [];
      board.querySelectorAll("details[data-do][open]").forEach(function (d) {
        const values = {};
        d.querySelectorAll("input[name], select[name], textarea[name]").forEach(function (f) {
          if (f.type !== "hidden") values[f.name] = f.value;
        });
        kept.push([d.dataset.do, values]);
      });
      board.innerHTML = html;
      kept.forEach(function ([name, values]) {
        const d = board.querySelector(`details[data-do="${CSS.escape(name)}"]`);
        if (!d) return;
        d.open = true;
        Object.entries(values).forEach(function ([field, value]) {
          const f = d.querySelector(`[name="${CSS.escape(field)}"]`);
          if (f && f.type !== "hidden") f.value = value;
        });
      });
      const shown = board.querySelector(".position").dataset;
      const moved = Number(shown.at) !== at || Number(shown.version) !== version;
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
      if (moved && !cardpop.hidden) closeSheet(); // its card and its actions were the old board's
      if (!moved && !cardpop.hidden && cardpop.dataset.name) {
        // The same board drawn again (a reconnect): the sheet stays, its controls those of the new drawing.
        const card = board.querySelector(`[data-name="${CSS.escape(cardpop.dataset.name)}"]`);
        if (!card) closeSheet();
      }
      highlight();
      return shown;
    }

    // Show the board at `position` (null: the latest event, following live).
    async function show(position) {
      wanted = position;
      const before = answered;
      const wait = withTimeout(WAIT_MS);
      let response;
      try {
        response = await fetch(`/matches/${encodeURIComponent(match)}/board?${query(position)}`,
                               { headers: Object.assign({ Accept: "text/html" }, FRAGMENT), signal: wait.signal });
      } catch (err) {
        say("No answer from the board: the connection or the match store is down. This page keeps trying.", "down");
        return;
      } finally {
        wait.done();
      }
      if (wanted !== position) return; // a newer request won
      if (response.status === 503) {
        say("The match store is not answering: " + (await response.text()) + " This page keeps trying.", "down");
        return;
      }
      if (!response.ok) return;
      const html = await response.text();
      // A form's answer placed while this fetch was on its way carries the
      // notice ("Logged.", "Refused (rule)"): a live board of no later
      // version must not wipe it (nor take the board back).
      if (!(answered !== before && position === null && versionOf(html) <= version)) {
        const was = version;
        place(html);
        if (version !== was) settle(false); // a new board: looked at before it is tapped
      }
      root.dataset.fetched = String(Number(root.dataset.fetched || 0) + 1); // tests wait on it
    }

    function versionOf(html) {
      const found = /data-version="(\d+)"/.exec(html);
      return found ? Number(found[1]) : Infinity;
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

    // --- the console: forms posted in the background ---------------------------------

    function setSending(on) {
      sending = on;
      root.querySelectorAll("form[data-console] button:not(.implicit), form[data-console] input[type=submit]").forEach(function (b) {
        b.disabled = on;
      });
      root.querySelectorAll(".sending").forEach(function (s) { s.hidden = !on; });
    }

    // What became of an entry whose answer could not wait for the store
    // (X-Outcome: unknown): asked every few seconds until it is known.
    async function learn(action, entry) {
      if (!entry) return;
      const url = action.replace(/\/[a-z-]+$/, "") + "/entries/" + encodeURIComponent(entry);
      for (let tries = 0; tries < 60; tries++) {
        await new Promise(function (done) { setTimeout(done, 2000); });
        let doc;
        try {
          const r = await fetch(url, { headers: Object.assign({ Accept: "application/json" }, FRAGMENT), credentials: "same-origin" });
          if (!r.ok) continue;
          doc = await r.json();
        } catch (err) { continue; }
        if (doc.status === "recorded") {
          say(`It was recorded (event ${doc.position}).`);
          show(null);
          return;
        }
        if (doc.status === "not recorded") {
          say("It was not recorded: enter it again.", "error");
          show(null);
          return;
        }
      }
    }

    async function submit(form, submitter, resend) {
      if (sending) return; // a second tap while the first is on its way
      const body = resend || new FormData(form, submitter);
      if (!body.get("csrf")) body.set("csrf", csrf);
      setSending(true);
      const wait = withTimeout(WAIT_MS * 2);
      let response;
      try {
        response = await fetch(form.getAttribute("action"), {
          method: "POST", body: body, headers: Object.assign({ "X-CSRF-Token": csrf }, FRAGMENT),
          signal: wait.signal, credentials: "same-origin",
        });
      } catch (err) {
        // The answer never came: the write may or may not have happened. Sending
        // it again as it was is safe (same version and entry: logged once).
        setSending(false);
        lastFailed = { form: form, body: body };
        say("No connection: the board did not answer. Nothing is shown as recorded until it does.", "down");
        const again = document.createElement("button");
        again.type = "button";
        again.textContent = "Send again";
        again.className = "act";
        again.addEventListener("click", function () {
          const failed = lastFailed;
          lastFailed = null;
          say("");
          if (failed) submit(failed.form, null, failed.body);
        });
        connection.appendChild(document.createTextNode(" "));
        connection.appendChild(again);
        return;
      } finally {
        wait.done();
      }
      // The old board's controls stay disabled until the answer is in place
      // (a second tap meanwhile would send the same entry again: logged once,
      // but the page would say so instead of what was logged).
      let text = "";
      try {
        text = await response.text();
      } finally {
        setSending(false);
      }
      const outcome = response.headers.get("X-Outcome");
      if (outcome === "unknown") {
        // The write reached the store but its outcome is not known yet: say so,
        // and ask what became of it (never "nothing was recorded").
        say(text, "down");
        learn(form.getAttribute("action"), response.headers.get("X-Entry"));
      } else if (outcome && !(response.headers.get("Content-Type") || "").startsWith("text/plain")) {
        say("");
        if (preview) preview.hidden = true;
        answered += 1;
        place(text); // the notice sticks to the top of the screen: the page is not scrolled under the finger
        settle(true);
      } else if (response.status === 503) {
        say(text.indexOf("nothing was recorded") >= 0 ? text : "The match store is not answering: nothing was recorded. " + text, "down");
      } else {
        // Refused before the rules were asked (expired form, no right to log):
        // keep the board and say why.
        say(text || `The board answered ${response.status}.`, "error");
      }
    }

    root.addEventListener("submit", function (event) {
      const form = event.target.closest("form[data-console]");
      if (!form) return;
      event.preventDefault();
      submit(form, event.submitter);
    });

    // --- one gesture, one entry (spec: console.md, 7) -----------------------------------
    //
    // After an entry is logged, the control the new board draws under the
    // point of the tap that logged it sleeps (disabled) until SETTLE_MS after
    // that tap: the second touch of a double tap, which comes within 400 ms
    // at that point, finds it asleep and logs nothing; every other control
    // takes a tap at once, and the one under the finger after a moment (a
    // tool's tap waits for it to be enabled, as for any other). A board that
    // arrives by itself (another station logged) sleeps whole for SEEN_MS,
    // so that nobody logs on a control they have not seen. A card's sheet
    // holds its controls asleep the same way after it opens.

    const SETTLE_MS = 450;
    const SEEN_MS = 250;
    const SAME_POINT = 24; // px around the first touch that count as the same point
    let tapped = null; // the last activation of a logging control: {x, y, t} (no point for a key)

    root.addEventListener("click", function (event) {
      if (!event.target.closest("form[data-console] button[type=submit], [data-sheet-line]")) return;
      tapped = { x: event.clientX, y: event.clientY, t: performance.now(), pointed: event.detail > 0 };
    }, true);

    function asleep(buttons, ms) {
      if (ms <= 0 || !buttons.length) return;
      buttons.forEach(function (b) { b.disabled = true; b.classList.add("settling"); });
      setTimeout(function () {
        buttons.forEach(function (b) {
          b.classList.remove("settling");
          if (!sending) b.disabled = false;
        });
      }, ms);
    }

    function loggingControls() {
      return Array.from(board.querySelectorAll("form[data-console] button[type=submit]:not(.implicit)"));
    }

    function settle(byForm) {
      const now = performance.now();
      if (!byForm) {
        asleep(loggingControls(), SEEN_MS); // a board nobody here asked for: looked at before it is tapped
        return;
      }
      if (!tapped || !tapped.pointed) return; // a key: deliberate, and no finger to lift
      const left = tapped.t + SETTLE_MS - now;
      if (left <= 0) return;
      // A thumb's second touch is not pixel-exact (nor is where the page maps
      // it): every control within SAME_POINT of the first touch sleeps.
      // The undo sleeps too, wherever it is: a double tap never takes back what its first touch logged.
      const found = Array.from(board.querySelectorAll("form[data-console] button[data-undo]"));
      for (const dx of [-SAME_POINT, 0, SAME_POINT]) {
        for (const dy of [-SAME_POINT, 0, SAME_POINT]) {
          const under = document.elementFromPoint(tapped.x + dx, tapped.y + dy);
          const control = under && under.closest("form[data-console] button[type=submit]");
          if (control && found.indexOf(control) < 0) found.push(control);
        }
      }
      asleep(found, left);
    }

    // A key (Enter in a picker, 1-9) is deliberate: it waits out the sleep instead of being lost.
    function press(button, tries) {
      if (!button.isConnected || sending) return;
      if (!button.disabled) { button.click(); return; }
      if (button.classList.contains("settling") && (tries || 0) < 40) {
        setTimeout(function () { press(button, (tries || 0) + 1); }, 25);
      }
    }

    // --- cards on the table: lit when a control can use them ----------------------------

    function actionButtons() {
      return Array.from(board.querySelectorAll("form.console button[data-action][data-copies]"));
    }

    function copiesOf(button) {
      try { return JSON.parse(button.dataset.copies); } catch (e) { return []; }
    }

    function fits(slot, el) {
      if (el.dataset.id) return slot.i === el.dataset.id;
      return el.dataset.zone && slot.z === el.dataset.zone && slot.n === el.dataset.name;
    }

    // The controls whose first card is ``el`` (what the card can do now).
    function controlsOf(el) {
      return actionButtons().filter(function (button) {
        return copiesOf(button).some(function (slots) { return slots[0] && fits(slots[0], el); });
      });
    }

    function pickable() {
      return Array.from(board.querySelectorAll(".table .character[data-id], .table .card.face[data-zone]"));
    }

    // Light the cards the decision can use (``only``: the controls of one
    // group); a tap on one shows its text and what it can do, and logs nothing.
    function highlight(only) {
      const buttons = only ? actionButtons().filter(function (b) { return only.indexOf(b.dataset.do) >= 0; }) : actionButtons();
      const firsts = [];
      buttons.forEach(function (b) { copiesOf(b).forEach(function (slots) { if (slots[0]) firsts.push(slots[0]); }); });
      pickable().forEach(function (el) {
        el.classList.toggle("pickable", firsts.some(function (slot) { return fits(slot, el); }));
      });
    }

    // --- reading a card (spec: console.md, 6): a sheet with its text, never an action ----

    function textOf(name) {
      const source = name && board.querySelector(`.card-texts [data-text-of="${CSS.escape(name)}"]`);
      let shown;
      if (source) {
        shown = source.cloneNode(true);
        shown.removeAttribute("data-text-of");
      } else {
        shown = document.createElement("div");
        shown.className = "cardtext";
        const head = document.createElement("b");
        head.textContent = name;
        shown.appendChild(head);
        const none = document.createElement("p");
        none.className = "muted";
        none.textContent = "No printed text to show for this card here.";
        shown.appendChild(none);
      }
      shown.setAttribute("data-card-text", name);
      return shown;
    }

    function closeSheet() {
      cardpop.hidden = true;
      cardpop.innerHTML = "";
      cardpop.dataset.name = "";
      hovering = false;
    }

    // The sheet of one card: its text, then (where the viewer logs) each
    // action it can take now, as a control of its own, then Close.
    function showCard(name, el, fromHover, point) {
      cardpop.innerHTML = "";
      const close = document.createElement("button");
      close.type = "button";
      close.className = "act small close";
      close.textContent = "Close";
      close.setAttribute("aria-label", "close the card's text");
      close.addEventListener("click", closeSheet);
      cardpop.appendChild(close); // first: always in reach, however long the text
      cardpop.appendChild(textOf(name));
      // An item sits on a character: a tap on it reads both (each card stays readable by its own tap).
      const holder = el && !fromHover && el.parentElement ? el.parentElement.closest("[data-name]") : null;
      if (holder && holder.dataset.name !== name) cardpop.appendChild(textOf(holder.dataset.name));
      // A character's values as computed now, with how (the tooltip a mouse shows).
      const why = el && el.querySelector(".values .why");
      if (why && !fromHover) {
        const copy = why.cloneNode(true);
        copy.className = "why-in-sheet";
        copy.removeAttribute("role");
        cardpop.appendChild(copy);
      }
      const actions = el && !fromHover ? controlsOf(el) : [];
      if (holder) controlsOf(holder).forEach(function (b) { if (actions.indexOf(b) < 0) actions.push(b); });
      if (actions.length) {
        const head = document.createElement("p");
        head.className = "muted";
        head.textContent = "It can now:";
        cardpop.appendChild(head);
        actions.forEach(function (button) {
          const b = document.createElement("button");
          b.type = "button";
          b.className = "act";
          b.dataset.sheetLine = button.dataset.action;
          b.textContent = button.dataset.do.replace(/_/g, " ") + ": " + button.dataset.label;
          b.addEventListener("click", function () {
            // The control as the board now draws it (the board may have been drawn again meanwhile).
            const now = board.querySelector(`form.console [data-action="${CSS.escape(button.dataset.action)}"]`);
            closeSheet();
            if (now) press(now); // deliberate: if the control sleeps a moment (a tap nearby just logged), it waits
          });
          cardpop.appendChild(b);
        });
      }
      cardpop.dataset.name = name;
      cardpop.hidden = false;
      hovering = !!fromHover;
      if (point) {
        // A double tap on a card reads it only: the sheet's controls near the touch wait it out.
        const near = Array.from(cardpop.querySelectorAll("[data-sheet-line]")).filter(function (b) {
          const r = b.getBoundingClientRect();
          return point.x >= r.left - SAME_POINT && point.x <= r.right + SAME_POINT &&
            point.y >= r.top - SAME_POINT && point.y <= r.bottom + SAME_POINT;
        });
        asleep(near, SETTLE_MS);
      }
    }

    board.addEventListener("click", async function (event) {
      const link = event.target.closest("a[data-at]");
      if (link) {
        event.preventDefault();
        go(Number(link.dataset.at));
        return;
      }
      const button = event.target.closest("[data-preview]");
      if (button && preview) {
        const response = await fetch(`/matches/${encodeURIComponent(match)}/rewind?to=${button.dataset.preview}`,
                                     { headers: FRAGMENT });
        preview.innerHTML = await response.text();
        preview.hidden = false;
        preview.scrollIntoView({ block: "start" });
        return;
      }
      const dismiss = event.target.closest("[data-dismiss]");
      if (dismiss) {
        const notice = dismiss.closest(".notice");
        if (notice) notice.remove();
        return;
      }
      const kind = event.target.closest("[data-pick]");
      if (kind) {
        highlight(kind.dataset.pick.split(" "));
        const first = board.querySelector(".table .pickable");
        if (first) first.scrollIntoView({ block: "center", behavior: "smooth" });
        return;
      }
      // Any face-up card: its text (and what it can do), nothing logged.
      if (event.target.closest("form, button, a")) return;
      const card = event.target.closest("[data-name]");
      if (card) {
        event.preventDefault();
        showCard(card.dataset.name, card, false, event.detail > 0 ? { x: event.clientX, y: event.clientY } : null);
      }
    });

    // Resting the mouse on a card shows its text on a desktop (a tap does on a phone).
    board.addEventListener("mouseover", function (event) {
      if (!matchMedia("(hover: hover)").matches) return;
      const card = event.target.closest("[data-name]");
      clearTimeout(hoverTimer);
      if (!card || card.closest("form, button")) return;
      const name = card.dataset.name;
      hoverTimer = setTimeout(function () {
        if (cardpop.hidden || cardpop.dataset.name !== name) showCard(name, card, true);
      }, 500);
    });
    board.addEventListener("mouseout", function (event) {
      clearTimeout(hoverTimer);
      const card = event.target.closest("[data-name]");
      if (card && hovering && !card.contains(event.relatedTarget)) closeSheet();
    });

    // --- pickers that filter (spec: console.md, 9) ---------------------------------------

    // A picker's own fieldset, or (data-filter-scope) the whole list of legal lines.
    function scopeOf(box) {
      return box.dataset.filterScope ? box.closest("form") : box.closest("fieldset");
    }

    function listed(box) {
      return Array.from(scopeOf(box).querySelectorAll("button[data-action]"));
    }

    board.addEventListener("input", function (event) {
      const box = event.target.closest("input[data-filter]");
      if (!box) return;
      const words = box.value.trim().toLowerCase();
      const scope = scopeOf(box);
      listed(box).forEach(function (b) {
        b.hidden = words !== "" && !(b.dataset.label || b.dataset.action || "").toLowerCase().includes(words);
      });
      scope.querySelectorAll(".kind").forEach(function (k) { k.hidden = words !== ""; });
      // Headings with nothing left under them go too.
      scope.querySelectorAll(".row, .part, fieldset.group").forEach(function (part) {
        part.hidden = words !== "" && !part.querySelector("button[data-action]:not([hidden])");
      });
    });

    // Enter ("Go" on a phone) logs only the one name left, else nothing.
    board.addEventListener("keydown", function (event) {
      const box = event.target.closest("input[data-filter]");
      if (!box || event.key !== "Enter") return;
      event.preventDefault();
      const left = listed(box).filter(function (b) { return !b.hidden; });
      if (left.length === 1) press(left[0]);
    });

    if (preview) {
      preview.addEventListener("click", function (event) {
        if (event.target.closest("[data-close-preview]")) preview.hidden = true;
      });
    }

    // --- keys -----------------------------------------------------------------------------

    document.addEventListener("keydown", function (event) {
      const tag = (event.target.tagName || "").toLowerCase();
      if (event.key === "Escape") {
        closeSheet();
        if (preview) preview.hidden = true;
        highlight();
        return;
      }
      if (tag === "input" && event.target !== slider) return;
      if (tag === "textarea" || tag === "select" || event.altKey || event.ctrlKey || event.metaKey) return;
      if (/^[1-9]$/.test(event.key)) {
        // Desktop shortcut: the action numbered so on its button (never a concession or a draw).
        const button = board.querySelector(`form.console button[data-key="${event.key}"]`);
        if (button && !button.hidden) press(button);
        event.preventDefault();
        return;
      }
      if (event.key === "/") {
        const box = board.querySelector("input[data-filter]");
        if (box) { box.focus(); event.preventDefault(); }
        return;
      }
      const step = event.shiftKey ? 10 : 1;
      if (event.key === "ArrowLeft") go(at - step);
      else if (event.key === "ArrowRight") go(at + step);
      else if (event.key === "Home") go(0);
      else if (event.key === "End") show(null);
      else return;
      event.preventDefault(); // the slider would move a second time
    });

    // --- live -------------------------------------------------------------------------------

    // The server says when the match has a new version; a page at the latest
    // event follows it, a page looking back only learns the length. It also
    // says when the store stops answering, and when it answers again.
    const stream = new EventSource(`/matches/${encodeURIComponent(match)}/live`);
    let lost = false;
    stream.addEventListener("version", function (event) {
      const latest = JSON.parse(event.data).version;
      if (latest <= version) return; // versions only grow (a rewind is an event too): an old message
      if (live) {
        if (!sending) show(null);
      } else {
        version = latest;
        slider.max = String(version);
        versionLabel.textContent = String(version);
      }
    });
    stream.addEventListener("store", function (event) {
      const health = JSON.parse(event.data);
      if (health.store === "down") {
        say("The match store is not answering (" + (health.message || "no answer") +
            "): nothing can be logged until it is back. This page comes back by itself.", "down");
      } else if (connection.classList.contains("down")) {
        say("");
        show(live ? null : at);
      }
    });
    stream.addEventListener("open", function () {
      if (lost) {
        lost = false;
        say("");
        show(live ? null : at); // whatever happened while the connection was gone
      }
    });
    stream.addEventListener("error", function () {
      lost = true;
      say("Connection to the board lost: reconnecting… Nothing you tap is recorded until it is back.", "down");
    });

    highlight();
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
    stream.addEventListener("store", function (event) {
      const health = JSON.parse(event.data);
      let banner = document.getElementById("store-down");
      if (health.store === "down") {
        if (!banner) {
          banner = document.createElement("p");
          banner.id = "store-down";
          banner.className = "connection down";
          section.parentNode.insertBefore(banner, section);
        }
        banner.textContent = "The match store is not answering: this page shows what it last knew and comes back by itself.";
      } else if (banner) {
        banner.remove();
        refresh();
      }
    });
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
