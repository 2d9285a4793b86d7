// The customer's chat page over the websocket protocol in docs/protocol.md. Plain JS, no build step.
// Every piece of data is written with textContent, never innerHTML.
(function () {
  "use strict";
  var config = window.CHAT_CONFIG;
  var T = JSON.parse(document.getElementById("chat-strings").textContent);
  var lang = document.documentElement.lang || "en";
  var $ = function (id) { return document.getElementById(id); };
  var log = $("log"), input = $("message"), sendButton = $("send"), connection = $("connection");

  var socket = null, conversationId = null, attempt = 0, reconnectTimer = null, stopped = false;
  var current = null;  // the agent reply being streamed: {item, body}
  var transitions = [];
  var ratingFor = null;

  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, name) { return String(values[name]); });
  }
  function stateLabel(state) { return T["state." + state] || state; }
  function formatTime(iso) {
    try {
      return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
    } catch (e) { return ""; }
  }

  // -- the log --------------------------------------------------------------------------
  function addMessage(role, text, opts) {
    opts = opts || {};
    var item = document.createElement("li");
    item.className = "msg " + role;
    var who = document.createElement("span");
    who.className = "who";
    if (role === "customer") who.textContent = T.you;
    else if (role === "staff") who.textContent = fill(T.staff_named, { name: opts.staffName || T.staff });
    else if (role === "agent") who.textContent = T.agent;
    else who.textContent = opts.label || "";
    item.appendChild(who);
    if (opts.at) {
      var time = document.createElement("time");
      time.dateTime = opts.at;
      time.textContent = formatTime(opts.at);
      item.appendChild(time);
    }
    var body = document.createElement("div");
    body.className = "body";
    body.textContent = text;
    item.appendChild(body);
    var empty = log.querySelector(".empty");
    if (empty) empty.remove();
    log.appendChild(item);
    item.scrollIntoView({ block: "end" });
    return { item: item, body: body };
  }
  function showEmpty() {
    var item = document.createElement("li");
    item.className = "empty";
    item.textContent = T.empty;
    log.appendChild(item);
  }

  // -- the inspector --------------------------------------------------------------------
  function listInto(id, items, emptyText, render) {
    var list = $(id);
    list.replaceChildren();
    if (!items.length) {
      var li = document.createElement("li");
      li.className = "none";
      li.textContent = emptyText;
      list.appendChild(li);
      return;
    }
    items.forEach(function (x) { list.appendChild(render(x)); });
  }
  function showState(state) {
    if (!state) return;
    $("state").textContent = stateLabel(state);
    $("state").dataset.state = state;
    $("inspector-state").textContent = stateLabel(state);
  }
  function showTransitions() {
    listInto("transitions", transitions.slice(-8), T.no_transitions, function (t) {
      var li = document.createElement("li");
      li.textContent = stateLabel(t.from) + " → " + stateLabel(t.to);
      return li;
    });
  }
  function showMemory(frame) {
    var used = (frame.working && frame.working.used) || 0, max = (frame.working && frame.working.max) || 0;
    var bar = $("working-bar");
    bar.setAttribute("aria-valuemax", String(max));
    bar.setAttribute("aria-valuenow", String(used));
    $("working-fill").style.width = (max ? Math.min(100, (100 * used) / max) : 0) + "%";
    $("working-text").textContent = fill(T.tokens, { used: used, max: max });
    listInto("recalled", frame.recalled || [], T.no_recalled, function (m) {
      var li = document.createElement("li");
      var tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = m.tag;
      li.appendChild(tag);
      li.appendChild(document.createTextNode(" " + m.content));
      return li;
    });
    listInto("learned", frame.learned || [], T.no_learned, function (text) {
      var li = document.createElement("li");
      li.textContent = text;
      return li;
    });
    listInto("promises", frame.promises || [], T.no_promises, function (text) {
      var li = document.createElement("li");
      li.textContent = text;
      return li;
    });
    showState(frame.state);
  }
  function resetInspector() {
    transitions = [];
    showTransitions();
    showMemory({ working: { used: 0, max: 0 }, recalled: [], learned: [], promises: [] });
    $("working-text").textContent = "–";
  }

  // -- frames from the server -------------------------------------------------------------
  var handlers = {
    history: function (f) {
      var changed = conversationId !== f.conversation_id;
      conversationId = f.conversation_id;
      current = null;
      log.replaceChildren();
      if (changed) resetInspector();
      f.messages.forEach(function (m) {
        addMessage(m.role, m.text, { at: m.at, staffName: m.staff_name });
      });
      if (!f.messages.length) showEmpty();
      if (connection.dataset.state !== "open") setConnection("open", T.connected);
      attempt = 0;  // the socket is usable: the next drop starts the backoff afresh
      showState(f.state);
      if (f.state === "resolved") offerRating(conversationId);
    },
    token: function (f) {
      if (!current) current = addMessage("agent", "");
      current.body.textContent += f.text;
      current.item.classList.add("streaming");
    },
    reply_reset: function () {
      // The reply being streamed is not kept (it failed midway, or the turn handed over): its start goes.
      if (current) current.item.remove();
      current = null;
    },
    reply_done: function (f) {
      if (current) current.item.classList.remove("streaming");
      current = null;
      showState(f.state);
      if (f.state === "resolved") offerRating(conversationId);
    },
    state: function (f) {
      transitions.push({ from: f.from, to: f.to });
      showTransitions();
      showState(f.to);
    },
    memory: showMemory,
    escalated: function (f) {
      if (current) current.item.classList.remove("streaming");  // what a yes changed stays said
      current = null;
      addMessage("system escalated", f.text, { label: T.escalated });
    },
    notice: function (f) { addMessage("system notice", f.text, { label: T.notice }); },
    staff_message: function (f) { addMessage("staff", f.text, { staffName: f.staff_name }); },
    error: function (f) {
      current = null;
      addMessage("system error", f.message, { label: T.error });
      if (f.code === "logged_out") stopped = true;
    },
  };

  // -- the socket, with reconnect --------------------------------------------------------------
  function setConnection(state, text) {
    connection.dataset.state = state;
    connection.textContent = text;
    sendButton.disabled = state !== "open";
    document.body.classList.toggle("reconnecting", state === "reconnecting");
  }
  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var url = scheme + location.host + config.wsPath + (conversationId ? "?conversation=" + encodeURIComponent(conversationId) : "");
    socket = new WebSocket(url);
    // "Open" (and the send button) waits for the history frame: the server accepts the socket before
    // it has authenticated it and loaded the conversation, and a message echoed earlier would be wiped by
    // the history. So does resetting the backoff: a busy server accepts, then closes with 4503.
    socket.onmessage = function (event) {
      var frame;
      try { frame = JSON.parse(event.data); } catch (e) { return; }
      var handler = handlers[frame.type];
      if (handler) handler(frame);
    };
    socket.onclose = function (event) {
      socket = null;
      if (current) { current.item.classList.remove("streaming"); current = null; }
      if (event.code === 4401 || stopped) {
        setConnection("closed", T.logged_out);
        window.setTimeout(function () { location.href = config.loginUrl; }, 1500);
        return;
      }
      // Exponential backoff with jitter: 0.5 s, 1 s, 2 s … at most 15 s. 4503 (try again later): the server
      // is busy or its database away; start at 2 s so that a crowd turned away does not return at once.
      if (event.code === 4503) attempt = Math.max(attempt, 2);
      var delay = Math.min(15000, 500 * Math.pow(2, attempt)) * (0.75 + Math.random() / 2);
      attempt += 1;
      setConnection("reconnecting", T.reconnecting);
      reconnectTimer = window.setTimeout(connect, delay);
    };
  }
  function send(frame) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(frame));
    return true;
  }

  // -- composing -------------------------------------------------------------------------------
  $("composer").addEventListener("submit", function (event) {
    event.preventDefault();
    var text = input.value.trim();
    if (!text) return;
    if (send({ type: "message", text: text })) {
      addMessage("customer", text, { at: new Date().toISOString() });
      input.value = "";
      hideRating();
    }
    input.focus();
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("new-conversation").addEventListener("click", function () {
    var previous = conversationId;
    var hadMessages = !!log.querySelector(".msg.customer");
    if (send({ type: "new_conversation" })) {
      if (previous && hadMessages) offerRating(previous);
      input.focus();
    }
  });
  $("toggle-inspector").addEventListener("click", function () {
    var panel = $("inspector"), open = panel.hidden;
    panel.hidden = !open;
    this.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("inspecting", open);
    if (open) $("inspector-title").focus();
  });
  $("inspector-title").tabIndex = -1;

  // -- rating ------------------------------------------------------------------------------------
  var chosenScore = 0;
  function offerRating(id) {
    if (!id || ratingFor === id) return;
    ratingFor = id;
    chosenScore = 0;
    $("rating").hidden = false;
    $("rating-status").textContent = "";
    $("rating-comment").value = "";
    document.querySelectorAll(".star").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
  }
  function hideRating() {
    if (!$("rating-status").textContent) return;  // keep an unanswered offer visible
    $("rating").hidden = true;
  }
  document.querySelectorAll(".star").forEach(function (button) {
    button.addEventListener("click", function () {
      chosenScore = Number(button.dataset.score);
      document.querySelectorAll(".star").forEach(function (b) {
        b.setAttribute("aria-pressed", String(Number(b.dataset.score) <= chosenScore));
      });
    });
  });
  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }
  $("rating-send").addEventListener("click", function () {
    if (!chosenScore || !ratingFor) return;
    fetch(config.ratingUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify({ conversation_id: ratingFor, score: chosenScore, comment: $("rating-comment").value }),
    }).then(function (response) {
      $("rating-status").textContent = response.ok ? T.rate_thanks : T.rate_failed;
      if (response.ok) window.setTimeout(function () { $("rating").hidden = true; input.focus(); }, 1200);
    }, function () { $("rating-status").textContent = T.rate_failed; });
  });
  $("rating-skip").addEventListener("click", function () { $("rating").hidden = true; input.focus(); });

  resetInspector();
  setConnection("connecting", T.connecting);
  connect();
  input.focus();
})();
