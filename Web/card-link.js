// The counter page's card linking: an operator enters a customer's wallet (the customer's id
// in the POS), arms a reader with `cards.arm`, and the page waits for the tap that uses the
// arm, shows the card it linked (or the conflict), and says when the arm was withdrawn
// (`cards.disarm`) or expired. A reader token may not arm: the page says so before anyone
// tries, from the role `bridge.hello` gave it, and again if the daemon refuses.
import { RPCError } from "./scanbridge.mjs";

// Long enough for a customer to find their card in a wallet, short enough that a reader left
// armed by a page nobody watches does not link a stranger's card much later.
const ARM_TIMEOUT_MS = 60_000;
const FORBIDDEN = -32003;
const NOT_FOUND = -32001;

/**
 * @typedef {object} Arm
 * @property {string} wallet
 * @property {string} device
 * @property {string} readerName
 * @property {number} afterSeq the last scan the page had when it armed; the tap comes after it
 * @property {string|null} token the daemon's, once it answered
 * @property {ReturnType<typeof setTimeout>|undefined} [timer]
 */

export class CardLinking {
  /**
   * @param {{
   *   form: HTMLFormElement, fields: HTMLFieldSetElement, reason: HTMLElement,
   *   wallet: HTMLInputElement, name: HTMLInputElement, reader: HTMLSelectElement,
   *   secure: HTMLInputElement, status: HTMLElement, cancel: HTMLButtonElement,
   * }} elements
   * @param {() => number} lastSeq the seq of the last scan the page has heard
   */
  constructor(elements, lastSeq) {
    this.elements = elements;
    this.lastSeq = lastSeq;
    /** @type {import("./scanbridge.mjs").Client | null} */
    this.client = null;
    /** @type {string|null} */
    this.role = null;
    /** Whether the daemon refused to arm for this token, whatever role the page thought it had. */
    this.refused = false;
    /** @type {any[]} the NFC readers present, by name */
    this.readers = [];
    /** @type {Arm|null} */
    this.arm = null;
    elements.form.addEventListener("submit", (submit) => {
      submit.preventDefault();
      this.start();
    });
    elements.cancel.addEventListener("click", () => this.cancel());
    this.render();
  }

  /** @param {import("./scanbridge.mjs").Client | null} client */
  setClient(client) {
    this.client = client;
    this.role = null;
    this.refused = false;
    this.render();
  }

  /** @param {string|null} role from `bridge.hello` */
  setRole(role) {
    this.role = role;
    this.render();
  }

  /** @param {any[]} devices every device the page knows, in the order it lists them */
  setDevices(devices) {
    this.readers = devices.filter((device) => device.kind === "nfc" && device.state !== "gone");
    const chosen = this.elements.reader.value;
    // Option's text is a text node, never parsed as HTML.
    const options = this.readers.map((device) => new Option(device.name || device.id, device.id));
    this.elements.reader.replaceChildren(...options);
    if (this.readers.some((device) => device.id === chosen)) this.elements.reader.value = chosen;
    this.render();
  }

  /**
   * Every scan the page hears: the tap that used the arm ends the wait. A `linked` tap names
   * the wallet it linked to, so another page's arm on the same reader is told apart; a
   * `conflict` names the card's own wallet, so the reader and the order must do.
   * @param {any} event
   */
  heard(event) {
    const arm = this.arm;
    const resolution = event.resolution;
    if (!arm || event.seq <= arm.afterSeq || event.device !== arm.device) return;
    if (resolution?.handler !== "card-link") return;
    if (resolution.status === "linked" && resolution.card?.walletAddress === arm.wallet) {
      const card = resolution.card;
      const who = resolution.customer?.name ? ` (${resolution.customer.name})` : "";
      const secure = card.security === "secure" ? " as a secure card" : "";
      this.finish("linked", `Linked ${card.displayName} · ${card.uidDisplay} to wallet ${arm.wallet}${who}${secure}.`);
    } else if (resolution.status === "unverified") {
      // A secure link takes a tap that proves the card; a read of its UID alone leaves the
      // reader armed.
      this.show("waiting", `That tap did not prove it is a secure card (${resolution.reason ?? "not verified"}): `
        + `tap an NTAG 424 DNA card on ${arm.readerName}, or cancel and untick Secure card.`);
    } else if (resolution.status === "conflict") {
      const card = resolution.card?.displayName ?? "This card";
      this.finish("conflict", resolution.reason ?? `${card} is linked to another wallet: unlink it first.`);
    }
  }

  async start() {
    const client = this.client;
    const device = this.elements.reader.value;
    const wallet = this.elements.wallet.value.trim();
    if (!client || this.arm || !device || !wallet) return;
    const readerName = this.elements.reader.selectedOptions[0]?.textContent ?? device;
    /** @type {Arm} */
    const arm = { wallet, device, readerName, afterSeq: this.lastSeq(), token: null };
    this.arm = arm;
    this.show("arming", `Arming ${readerName}…`);
    /** @type {import("./scanbridge.mjs").ParamsOf<"cards.arm">} */
    const params = { walletAddress: wallet, device, timeoutMs: ARM_TIMEOUT_MS };
    const cardName = this.elements.name.value.trim();
    if (cardName) params.cardName = cardName;
    if (this.elements.secure.checked) params.security = "secure";
    let answer;
    try {
      answer = await client.call("cards.arm", params);
    } catch (error) {
      if (this.arm !== arm) return;
      this.arm = null;
      if (error instanceof RPCError && error.code === FORBIDDEN) {
        this.refused = true;
        this.show("refused", `The daemon refused to arm ${readerName} for this page's token.`);
      } else {
        this.show("failed", `Could not arm ${readerName}: ${error instanceof Error ? error.message : error}`);
      }
      return;
    }
    // The tap may have come, and ended the wait, before this answer did.
    if (this.arm !== arm) return;
    arm.token = answer.armed;
    arm.timer = setTimeout(() => {
      if (this.arm !== arm) return;
      this.finish("expired", `No card was tapped within ${ARM_TIMEOUT_MS / 1000} s: ${readerName} links nothing now.`);
    }, ARM_TIMEOUT_MS);
    const until = new Date(answer.expiresAt);
    const by = Number.isNaN(until.getTime()) ? "" : ` by ${until.toLocaleTimeString()}`;
    this.show("waiting", `Waiting for a tap on ${readerName}${by}: the card tapped is linked to wallet ${wallet}.`);
    this.elements.cancel.focus();
  }

  async cancel() {
    const arm = this.arm;
    if (!arm?.token || !this.client) return;
    try {
      await this.client.call("cards.disarm", { armed: arm.token });
      if (this.arm === arm) this.finish("cancelled", `Cancelled: ${arm.readerName} links nothing now.`);
    } catch (error) {
      if (this.arm !== arm) return;
      if (error instanceof RPCError && error.code === NOT_FOUND) {
        this.finish("cancelled", "The arm was already used or had expired; the scans show any tap.");
      } else {
        this.show("waiting", `Could not cancel: ${error instanceof Error ? error.message : error}`);
      }
    }
  }

  /**
   * @param {string} state
   * @param {string} text
   */
  finish(state, text) {
    const arm = this.arm;
    clearTimeout(arm?.timer);
    this.arm = null;
    const hadFocus = document.activeElement === this.elements.cancel;
    this.show(state, text);
    if (hadFocus) this.elements.wallet.focus();
  }

  /**
   * @param {string} state
   * @param {string} text
   */
  show(state, text) {
    this.elements.status.dataset.state = state;
    this.elements.status.textContent = text;
    this.render();
  }

  /** Enables the form only when an arm can work, and says why not otherwise. */
  render() {
    const { fields, reason, cancel } = this.elements;
    let why = "";
    if (this.role === "reader" || this.refused) {
      why =
        "Linking a card needs an operator token; this page's token is a reader's. " +
        "An administrator makes one with scanbridge tokens create --role operator.";
    } else if (!this.readers.length) {
      why = "No NFC reader is connected.";
    }
    reason.textContent = why;
    reason.hidden = !why;
    fields.disabled = Boolean(why) || this.arm !== null || !this.client;
    cancel.hidden = !this.arm?.token;
  }
}
