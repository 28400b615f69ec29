// A player's own Ed25519 key, kept in this browser, and the signature a keyed seat's action
// carries. The host holds a game's seed and could re-play it with other moves; a seat that
// signs each move with a key only its player holds cannot be forged that way (issue 25). The
// bytes signed are domain/engine/signing.py's action_message: change both or neither.

const ALGORITHM = { name: "Ed25519" };
const ACTION_CONTEXT = "floe-action-v1";
const STORE = (publicKey) => `floe:key:${publicKey}`;
// A PKCS #8 Ed25519 private key is this fixed prefix, then the 32-byte seed (RFC 8410).
const PKCS8_PREFIX = "302e020100300506032b657004220420";
const HEX64 = /^[0-9a-f]{64}$/;

export const KEY_FILE_KIND = "floe-ed25519-key";

export function toHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex) {
  return Uint8Array.from(hex.match(/../g) || [], (pair) => parseInt(pair, 16));
}

function fromBase64Url(text) {
  const plain = text.replaceAll("-", "+").replaceAll("_", "/");
  return Uint8Array.from(atob(plain + "=".repeat((4 - (plain.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

/**
 * Canonical JSON, as Python's json.dumps(sort_keys=True, separators=(",", ":"),
 * ensure_ascii=False) writes it (domain.engine.canonical): keys sorted at every level, no
 * whitespace, strings escaped as JSON.stringify escapes them (which matches Python's output
 * for them). Keys are compared by UTF-16 code unit (`a < b`) while Python compares code
 * points: the two orders differ only between keys holding characters above U+FFFF and
 * characters from U+E000 to U+FFFF, and Floe's actions have plain ASCII keys. Numbers are
 * integers in every action, written alike by both.
 */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The bytes a keyed seat signs to post `action` against `expectedVersion` in `gameId`. */
export function actionMessage(gameId, expectedVersion, action) {
  const text = `${ACTION_CONTEXT}\n${gameId}\n${expectedVersion}\n${canonicalJson(action)}`;
  return new TextEncoder().encode(text);
}

/** Whether this browser's WebCrypto signs with Ed25519 at all. */
export function canSign() {
  return Boolean(globalThis.crypto && crypto.subtle && crypto.subtle.generateKey);
}

/** The private key of a 32-byte seed (64 hex), as WebCrypto holds it. */
function importSeed(privateKey) {
  return crypto.subtle.importKey("pkcs8", fromHex(PKCS8_PREFIX + privateKey), ALGORITHM, true, ["sign"]);
}

/** The public key (64 hex) of a private key WebCrypto holds (its JWK names it: `x`). */
async function publicOf(key) {
  const jwk = await crypto.subtle.exportKey("jwk", key);
  return toHex(fromBase64Url(jwk.x));
}

function keep(pair) {
  localStorage.setItem(STORE(pair.public_key), JSON.stringify(pair));
}

/**
 * A new key, kept in this browser under its public key: `{public_key, private_key}`, both
 * 64 hex (the private key is the RFC 8032 seed, as replay/ed25519.py takes it). Throws when
 * the browser cannot make one or cannot keep it.
 */
export async function makeKey() {
  const made = await crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const publicKey = toHex(await crypto.subtle.exportKey("raw", made.publicKey));
  const jwk = await crypto.subtle.exportKey("jwk", made.privateKey);
  const pair = { public_key: publicKey, private_key: toHex(fromBase64Url(jwk.d)) };
  keep(pair);
  return pair;
}

/** Forget a key this browser made for a seat it did not get (the request was refused). */
export function dropKey(publicKey) {
  try {
    localStorage.removeItem(STORE(publicKey));
  } catch (_) { /* nothing kept */ }
}

/** The key this browser holds for `publicKey`, or null. */
export function heldKey(publicKey) {
  if (!publicKey) return null;
  try {
    const pair = JSON.parse(localStorage.getItem(STORE(publicKey)) || "null");
    return pair && pair.public_key === publicKey && HEX64.test(pair.private_key || "") ? pair : null;
  } catch (_) {
    return null;
  }
}

/** Ed25519 signature (128 hex) of the held `pair` over `message`. */
export async function signWith(pair, message) {
  const key = await importSeed(pair.private_key);
  return toHex(await crypto.subtle.sign(ALGORITHM, key, message));
}

/** The file "Download my key" saves: what importKey takes back, here or in any browser. */
export function keyFile(pair) {
  return `${JSON.stringify({ kind: KEY_FILE_KIND, public_key: pair.public_key, private_key: pair.private_key }, null, 2)}\n`;
}

/**
 * Import a pasted key: the downloaded key file, a JWK (`d`, `x`), or the private key alone
 * (64 hex). Kept only when its public key is `expected` (the seat's); resolves to the pair,
 * rejects with an Error whose message a person can read.
 */
export async function importKey(text, expected) {
  const given = String(text || "").trim();
  let privateKey = null;
  if (HEX64.test(given.toLowerCase())) {
    privateKey = given.toLowerCase();
  } else {
    let parsed = null;
    try {
      parsed = JSON.parse(given);
    } catch (_) { /* not JSON: said below */ }
    if (parsed && typeof parsed.private_key === "string" && HEX64.test(parsed.private_key.toLowerCase())) {
      privateKey = parsed.private_key.toLowerCase();
    } else if (parsed && typeof parsed.d === "string") {
      try {
        privateKey = toHex(fromBase64Url(parsed.d));
      } catch (_) { /* said below */ }
    }
  }
  if (!privateKey || !HEX64.test(privateKey)) {
    throw new Error("That is not a key: paste the file “Download my key” saved (or its private_key, 64 hex digits).");
  }
  const publicKey = await publicOf(await importSeed(privateKey));
  if (publicKey !== expected) {
    throw new Error(`That key is not this seat's: its public key is ${publicKey.slice(0, 16)}…, the seat's is ${expected.slice(0, 16)}….`);
  }
  const pair = { public_key: publicKey, private_key: privateKey };
  keep(pair);
  return pair;
}
