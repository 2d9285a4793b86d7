// The staff console over the staff socket (docs/protocol.md, "Staff socket"): the inbox and the open
// conversation update live; take and reply go over the socket. Without JavaScript the forms still work.
// Every piece of data is written with textContent, never innerHTML.
(function () {
  "use strict";
  var page = document.querySelector("[data-staff-page]");
  if (!page || !window.WebSocket) return;
  var conversationId = page.dataset.conversation || null;
  var scheme = location.protocol === "https:" ? "wss://" : "ws://";
  var socket = new WebSocket(scheme + location.host + "/ws/staff/");
  var $ = function (id) { return document.getElementById(id); };
  var T = JSON.parse(($("staff-strings") || { textContent: "{}" }).textContent);
  function fill(template, values) {
    return (template || "").replace(/%\((\w+)\)s/g, function (_, name) { return String(values[name]); });
  }

  function item(text, href) {
    var li = document.createElement("li");
    if (href) {
      var a = document.createElement("a");
      a.href = href;
      a.textContent = text;
      li.appendChild(a);
    } else {
      li.textContent = text;
    }
    return li;
  }
  function fillList(list, items, render, emptyText) {
    if (!list) return;
    list.replaceChildren();
    if (!items.length) list.appendChild(item(emptyText));
    items.forEach(function (x) { list.appendChild(render(x)); });
  }

  function showInbox(frame) {
    fillList($("waiting"), frame.waiting, function (x) {
      var li = item(x.customer, "/staff/" + x.conversation_id + "/");
      var waited = fill(T.waiting, { minutes: Math.max(0, Math.round(x.waiting_seconds / 60)) });
      li.appendChild(document.createTextNode(" · " + waited + " — " + x.issue));
      return li;
    }, T.nobody_waiting);
    fillList($("taken"), frame.taken, function (x) {
      var li = item(x.customer, "/staff/" + x.conversation_id + "/");
      li.appendChild(document.createTextNode(" · " + fill(T.held_by, { name: x.taken_by })));
      return li;
    }, T.none);
  }
  function showConversation(frame) {
    if (frame.conversation_id !== conversationId) return;
    fillList($("transcript"), frame.transcript, function (m) {
      var li = document.createElement("li");
      var who = document.createElement("strong");
      who.textContent = m.who;
      li.appendChild(who);
      li.appendChild(document.createTextNode(": " + m.text));
      return li;
    }, "");
    var holder = $("holder");
    if (holder) holder.textContent = frame.taken_by ? fill(T.held_by, { name: frame.taken_by }) + " · " + frame.state : frame.state;
  }
  function showError(frame) {
    var notes = $("staff-notes");
    if (notes) notes.appendChild(item(frame.message));
  }

  socket.addEventListener("open", function () {
    page.dataset.socket = "open";
    if (conversationId) socket.send(JSON.stringify({ type: "open", conversation_id: conversationId }));
  });
  socket.addEventListener("close", function (event) {
    page.dataset.socket = "closed " + event.code;  // 4401: logged out; 4403: not staff
  });
  socket.addEventListener("message", function (event) {
    var frame = JSON.parse(event.data);
    if (frame.type === "inbox") showInbox(frame);
    else if (frame.type === "conversation") showConversation(frame);
    else if (frame.type === "error") showError(frame);
  });
  // Over the socket when it is open; otherwise the form posts as without JavaScript.
  document.querySelectorAll("form[data-socket-action]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (socket.readyState !== WebSocket.OPEN) return;
      event.preventDefault();
      var frame = { type: form.dataset.socketAction, conversation_id: conversationId };
      var text = form.querySelector("textarea[name=text]");
      if (text) frame.text = text.value;
      socket.send(JSON.stringify(frame));
      if (text) text.value = "";
    });
  });
})();
