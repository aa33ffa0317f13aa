// The /simulator page: a simulated customer phone for test mode. It keeps no data of its own: every read and
// every action goes through the REST API with the operator's test-mode key, so it shows that merchant only.
"use strict";

const KEY_STORAGE = "ocs.simulator.key";
const RECONNECT_MS = 2000;

const state = {
  key: null,
  /** Aborts the current event stream (forget key, reconnect). */
  controller: null,
  reconnectTimer: null,
  /** phone → its <section> */
  phones: new Map(),
  /** orderId → { message, order, element } */
  orders: new Map(),
};

const $ = (selector, root = document) => root.querySelector(selector);

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.error;
  }
}

async function api(method, path, body) {
  const headers = { "x-api-key": state.key, accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  const json = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

// ---- connection ----------------------------------------------------------------------------------------------

function setConnection(stateName, text) {
  const element = $("#connection");
  element.dataset.state = stateName;
  element.textContent = text;
}

function showNotice(text) {
  const notice = $("#notice");
  notice.textContent = text || "";
  notice.hidden = !text;
}

function showSession(connected) {
  $("#key-form").hidden = connected;
  $("#connected-as").hidden = !connected;
  $("#intro").hidden = connected;
  if (connected) $("#key-prefix").textContent = `${state.key.slice(0, 12)}…`;
}

function disconnect() {
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = null;
  if (state.controller) state.controller.abort();
  state.controller = null;
}

function clearPhones() {
  state.phones.clear();
  state.orders.clear();
  $("#phones").replaceChildren();
  $("#empty").hidden = true;
}

async function connect(key) {
  disconnect();
  const controller = new AbortController();
  state.controller = controller;
  state.key = key;
  setConnection("connecting", "Connecting…");
  try {
    // The stream first, then the snapshot: nothing sent in between is missed (applying an update twice is harmless).
    const response = await fetch("/api/v1/test/events", {
      headers: { "x-api-key": key, accept: "text/event-stream" },
      signal: controller.signal,
      cache: "no-store",
    });
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
    sessionStorage.setItem(KEY_STORAGE, key);
    showSession(true);
    showNotice("");
    const snapshot = await api("GET", "/api/v1/test/conversations");
    if (controller.signal.aborted) return;
    clearPhones();
    // Oldest phone first, so the newest one ends up on top.
    for (const conversation of snapshot.data.slice().reverse()) {
      for (const message of conversation.messages) addMessage(message, message.order);
    }
    refreshEmpty();
    await readEvents(response.body, controller.signal, () => setConnection("live", "Live"));
    if (controller.signal.aborted) return;
    throw new Error("stream ended");
  } catch (error) {
    if (controller.signal.aborted) return;
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      // A wrong or live key: ask for another one rather than retrying.
      sessionStorage.removeItem(KEY_STORAGE);
      state.key = null;
      showSession(false);
      clearPhones();
      setConnection("error", error.status === 403 ? "Not a test-mode key" : "Key refused");
      showNotice(
        error.status === 403
          ? `${error.message} The simulator needs a test-mode key (ek_test_…).`
          : `${error.message} Check the key and try again.`,
      );
      return;
    }
    setConnection("offline", "Disconnected, reconnecting…");
    state.reconnectTimer = setTimeout(() => {
      if (state.key === key) void connect(key);
    }, RECONNECT_MS);
  }
}

/** Reads a text/event-stream body until it ends, dispatching each event. */
async function readEvents(body, signal, onReady) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length === 0) continue;
        const payload = JSON.parse(data.join("\n"));
        if (event === "ready") onReady();
        else if (event === "message") {
          addMessage(payload.message, payload.order);
          refreshEmpty();
        } else if (event === "order") updateOrder(payload.order);
      }
    }
  } finally {
    if (signal.aborted) reader.cancel().catch(() => undefined);
  }
}

// ---- rendering -----------------------------------------------------------------------------------------------

function refreshEmpty() {
  $("#empty").hidden = state.orders.size > 0;
}

function phoneSection(phone) {
  let section = state.phones.get(phone);
  if (!section) {
    section = $("#phone-template").content.firstElementChild.cloneNode(true);
    section.dataset.phone = phone;
    $(".phone-number", section).textContent = `+${phone}`;
    state.phones.set(phone, section);
  }
  // The phone with the newest message comes first.
  $("#phones").prepend(section);
  return section;
}

function addMessage(message, order) {
  const known = state.orders.get(message.orderId);
  if (known && message.kind && message.kind !== "confirmation" && message.kind !== "reminder") {
    addConversationMessage(known, message);
    updateOrder(order);
    return;
  }
  if (known && message.reminder) {
    addReminder(known, message);
    updateOrder(order);
    return;
  }
  if (known) {
    updateOrder(order);
    return;
  }
  const element = $("#message-template").content.firstElementChild.cloneNode(true);
  element.dataset.orderId = message.orderId;
  element.dataset.messageId = message.id;
  for (const bubble of element.querySelectorAll(".bubble")) setLanguage(bubble, message.language);
  fillIncoming(element, message);
  for (const button of element.querySelectorAll("[data-delivery]")) {
    button.addEventListener("click", () =>
      act(message.orderId, `/api/v1/test/orders/${message.orderId}/delivery`, { status: button.dataset.delivery }),
    );
  }

  $(".say-form", element).addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $(".say-input", element);
    const text = input.value;
    if (!text.trim()) return;
    input.value = "";
    void act(message.orderId, `/api/v1/test/orders/${message.orderId}/customer-message`, { text });
  });

  state.orders.set(message.orderId, { message, order: null, element, reminders: [] });
  $(".chat", phoneSection(message.phone)).append(element);
  updateOrder(order);
}

/**
 * A reminder: its own bubble, after the messages before it and before the customer's answer, with buttons that
 * act on the same order as the first message's.
 */
function addReminder(entry, message) {
  if (entry.reminders.some((reminder) => reminder.dataset.messageId === message.id)) return;
  const bubble = $("#reminder-template").content.firstElementChild.cloneNode(true);
  bubble.dataset.orderId = message.orderId;
  bubble.dataset.messageId = message.id;
  setLanguage(bubble, message.language);
  fillIncoming(bubble, message);
  entry.reminders.push(bubble);
  $(".answer", entry.element).before(bubble);
}

/**
 * A message of the order's conversation (SPEC §11): the customer's own text (their side), a merchant's reply, or the
 * service's automatic reply buttons or list (the business's side), in arrival order before the customer's answer.
 */
function addConversationMessage(entry, message) {
  if (entry.reminders.some((bubble) => bubble.dataset.messageId === message.id)) return;
  const fromCustomer = message.sender === "customer";
  const bubble = $("#conversation-template").content.firstElementChild.cloneNode(true);
  bubble.classList.add(fromCustomer ? "outgoing" : "incoming", `kind-${message.kind}`);
  bubble.dataset.orderId = message.orderId;
  bubble.dataset.messageId = message.id;
  bubble.dataset.sender = message.sender || "service";
  setLanguage(bubble, message.language);
  const label = $(".sender-label", bubble);
  label.textContent = message.sender === "merchant" ? "Merchant" : message.sender === "service" ? "Automatic reply" : "";
  label.hidden = fromCustomer;
  $(".text", bubble).textContent = message.text;
  const sentAt = $(".sent-at", bubble);
  sentAt.dateTime = message.sentAt;
  sentAt.textContent = new Date(message.sentAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const replies = $(".quick-replies", bubble);
  if (message.hasButtons) {
    for (const action of ["approve", "cancel"]) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "reply-button";
      button.dataset.action = action;
      button.textContent = message.buttons[action];
      button.addEventListener("click", () =>
        act(message.orderId, `/api/v1/test/orders/${message.orderId}/customer-action`, { action }),
      );
      replies.append(button);
    }
  } else if (message.rows && message.rows.length) {
    // A list: its rows as the phone would show them once opened (choosing one happens on a real phone only).
    for (const row of message.rows) {
      const item = document.createElement("div");
      item.className = "list-row";
      item.textContent = `${row.title} · ${row.description}`;
      replies.append(item);
    }
  } else replies.remove();
  entry.reminders.push(bubble);
  $(".answer", entry.element).before(bubble);
}

function setLanguage(bubble, language) {
  bubble.dir = language === "ar" ? "rtl" : "ltr";
  bubble.lang = language;
}

/** The customer's side of a message (first or reminder): its text, time and the two working buttons. */
function fillIncoming(container, message) {
  // Text only, never markup: the message carries the merchant's and the customer's own words.
  $(".text", container).textContent = message.text;
  $('[data-action="approve"]', container).textContent = message.buttons.approve;
  $('[data-action="cancel"]', container).textContent = message.buttons.cancel;
  const sentAt = $(".sent-at", container);
  sentAt.dateTime = message.sentAt;
  sentAt.textContent = new Date(message.sentAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  for (const button of container.querySelectorAll("[data-action]")) {
    button.addEventListener("click", () =>
      act(message.orderId, `/api/v1/test/orders/${message.orderId}/customer-action`, { action: button.dataset.action }),
    );
  }
}

async function act(orderId, path, body) {
  const entry = state.orders.get(orderId);
  if (!entry) return;
  const error = $(".error", entry.element);
  error.hidden = true;
  entry.element.classList.add("busy");
  try {
    updateOrder(await api("POST", path, body));
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
    if (failure instanceof ApiError && failure.status === 401) void connect(state.key);
  } finally {
    entry.element.classList.remove("busy");
  }
}

const STATUS_LABELS = { pending: "pending", confirmed: "confirmed", canceled: "canceled", failed: "failed", expired: "expired" };

function updateOrder(order) {
  const entry = state.orders.get(order.id);
  if (!entry) return;
  // Updates may arrive out of order (a POST's answer and the stream): never go back to an older state.
  if (entry.order && entry.order.updatedAt > order.updatedAt) return;
  entry.order = order;
  const { element, message } = entry;
  element.dataset.status = order.status;

  const badge = $(".badge", element);
  badge.dataset.status = order.status;
  badge.textContent = STATUS_LABELS[order.status] || order.status;
  $(".order-ref", element).textContent = order.externalOrderId;
  const details = [`customer: ${order.customerAction || "no answer yet"}`, `delivery: ${order.deliveryStatus || "—"}`];
  if (order.failureReason) details.push(`${order.failureReason}${order.errorCode ? ` (${order.errorCode})` : ""}`);
  $(".order-detail", element).textContent = details.join(" · ");

  const pending = order.status === "pending";
  for (const button of element.querySelectorAll("[data-action]")) button.disabled = !pending;
  for (const reminder of entry.reminders) {
    reminder.dataset.status = order.status;
    for (const button of reminder.querySelectorAll("[data-action]")) button.disabled = !pending;
  }

  const ticks = element.querySelector(".bubble.incoming .meta");
  let tick = $(".ticks", ticks);
  if (!tick) {
    tick = document.createElement("span");
    tick.className = "ticks";
    ticks.append(tick);
  }
  tick.dataset.delivery = order.deliveryStatus || "none";
  tick.textContent = { sent: "✓", delivered: "✓✓", read: "✓✓", failed: "!" }[order.deliveryStatus] || "🕓";
  tick.title = order.deliveryStatus || "not reported yet";

  const answer = $(".answer", element);
  if (order.customerAction) {
    $(".answer-text", answer).textContent = order.customerAction === "approved" ? message.buttons.approve : message.buttons.cancel;
    answer.hidden = false;
  } else answer.hidden = true;
}

// ---- start ---------------------------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("#key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("#api-key");
    const key = input.value.trim();
    if (!key) return;
    input.value = "";
    clearPhones();
    void connect(key);
  });
  $("#forget-key").addEventListener("click", () => {
    disconnect();
    sessionStorage.removeItem(KEY_STORAGE);
    state.key = null;
    clearPhones();
    showSession(false);
    showNotice("");
    setConnection("disconnected", "Not connected");
  });
  const saved = sessionStorage.getItem(KEY_STORAGE);
  if (saved) void connect(saved);
});
